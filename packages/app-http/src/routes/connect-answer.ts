/**
 * How the browser-facing OAuth routes answer the end of a flow: a 302 to the flow's return_url
 * with the new ids or the error, or (without one) a small HTML page saying what happened.
 */
import type { ConnectResult } from '@social-publisher/domain';
import type { FastifyReply } from 'fastify';
import { connectResultPage } from '../pages/connect-result.ts';

/** `url` with these query parameters added (its own are kept). */
function withQuery(url: string, params: Record<string, string>): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  return target.toString();
}

export function sendConnectResult(reply: FastifyReply, result: ConnectResult): FastifyReply {
  reply.header('Cache-Control', 'no-store');
  reply.header('Referrer-Policy', 'no-referrer');
  if (result.returnUrl) {
    const location = result.ok
      ? withQuery(result.returnUrl, {
          social_account_ids: result.connections.map((c) => c.id).join(','),
          platform: result.platform,
        })
      : withQuery(result.returnUrl, {
          error: result.code,
          error_description: result.message,
        });
    return reply.code(302).header('Location', location).send(null);
  }
  return reply
    .code(result.ok ? 200 : 400)
    .type('text/html; charset=utf-8')
    .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
    .send(connectResultPage(result));
}
