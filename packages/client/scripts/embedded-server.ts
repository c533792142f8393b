/**
 * The whole service in this process, as `pnpm start` wires it in embedded mode: PGlite in a
 * temporary DATA_DIR, the in-process queue, the worker, and the API listening on 127.0.0.1 on a
 * free port. The generator reads the OpenAPI document from it, and the tests and the example
 * talk to it with the client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap, buildApp, createLogger } from '@social-publisher/app-http';
import { createRuntime, loadRuntimeConfig, startWorker } from '@social-publisher/runtime';

export interface EmbeddedServer {
  baseUrl: string;
  /** The key of the first user, created on the empty database. */
  apiKey: string;
  close(): Promise<void>;
}

export interface EmbeddedServerOptions {
  /** Logged to stderr; default silent. */
  logLevel?: 'silent' | 'error' | 'warn' | 'info' | 'debug';
}

export async function startEmbeddedServer(
  options: EmbeddedServerOptions = {},
): Promise<EmbeddedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sp-client-'));
  const cleanups: Array<() => Promise<void> | void> = [
    () => rmSync(dataDir, { recursive: true, force: true }),
  ];
  const close = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };

  try {
    // A fixed environment, not process.env: the served document (and so the generated types)
    // must not depend on whatever happens to be set in the shell that runs the generator.
    const config = loadRuntimeConfig({
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: options.logLevel ?? 'silent',
    });
    const logger = createLogger(config, { name: 'client-embedded', destination: process.stderr });
    const runtime = await createRuntime(config, logger, { role: 'embedded' });
    const worker = await startWorker(runtime, config);
    cleanups.push(() => worker.stop()); // also closes the runtime

    const first = await bootstrap(runtime.deps, null);
    if (first.kind !== 'first-user') throw new Error(`bootstrap: unexpected ${first.kind}`);

    const app = await buildApp({
      deps: runtime.deps,
      checks: runtime.checks,
      queueKind: runtime.queueKind,
      config,
      logger,
      rateLimitRedis: runtime.rateLimitRedis,
    });
    await app.listen({ port: config.port, host: config.host });
    // Closed first: no request in flight while the worker and the runtime stop.
    cleanups.push(() => app.close());
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('the API has no port');

    return { baseUrl: `http://127.0.0.1:${address.port}`, apiKey: first.rawKey, close };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}
