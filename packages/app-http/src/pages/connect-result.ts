/** The small HTML page the OAuth callback answers when the flow has no return_url. */
import type { ConnectResult } from '@social-publisher/domain';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function connectResultPage(result: ConnectResult): string {
  const title = result.ok ? 'Account connected' : 'Account not connected';
  const body = result.ok
    ? `<p>${escapeHtml(result.platform)}: connected ${result.connections
        .map(
          (c) =>
            `<strong>${escapeHtml(c.displayName ?? c.externalId)}</strong> (id <code>${escapeHtml(c.id)}</code>)`,
        )
        .join(', ')}.</p><p>You can close this window.</p>`
    : `<p>${escapeHtml(result.platform)}: ${escapeHtml(result.message)}</p><p>Code: <code>${escapeHtml(result.code)}</code></p>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem}</style></head><body><h1>${title}</h1>${body}</body></html>`;
}
