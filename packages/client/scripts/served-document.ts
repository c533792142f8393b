/** The OpenAPI document the API serves now: GET /openapi.json from a fresh embedded server. */
import { startEmbeddedServer } from './embedded-server.ts';

export async function fetchServedDocument(): Promise<unknown> {
  const server = await startEmbeddedServer();
  try {
    const response = await fetch(`${server.baseUrl}/openapi.json`);
    if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
    return await response.json();
  } finally {
    await server.close();
  }
}
