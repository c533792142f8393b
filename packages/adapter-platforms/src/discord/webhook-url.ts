// A Discord webhook URL, as a channel's Integrations settings give it:
// https://discord.com/api/webhooks/<id>/<token>. Only its id and token are kept (the token as
// the connection's encrypted access token); every call is made on DISCORD_API_BASE_URL.

/** One webhook: its snowflake id and its secret token. */
export interface WebhookRef {
  id: string;
  token: string;
}

/** Discord's own hosts a webhook URL may name (the app's copy button uses discord.com). */
const DISCORD_HOSTS = new Set([
  'discord.com',
  'discordapp.com',
  'ptb.discord.com',
  'canary.discord.com',
]);

/** `/api[/v<n>]/webhooks/<id>/<token>`, a trailing slash allowed. */
const WEBHOOK_PATH = /^\/api(?:\/v\d{1,2})?\/webhooks\/(\d{5,25})\/([A-Za-z0-9_-]{20,200})\/?$/;

/** The path under `base` (its own path included), or null when `url` is not under it. */
function pathUnder(url: URL, base: URL): string | null {
  if (url.origin !== base.origin) return null;
  const prefix = base.pathname.replace(/\/+$/, '');
  if (prefix === '') return url.pathname;
  return url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : null;
}

/**
 * The webhook a URL names, when it is an https URL on one of Discord's hosts or under
 * `apiBaseUrl` (a proxy, the tests' fake), with the webhook path and nothing else (no query, no
 * credentials); null otherwise.
 */
export function parseWebhookUrl(text: string, apiBaseUrl: string): WebhookRef | null {
  let url: URL;
  let base: URL;
  try {
    url = new URL(text.trim());
    base = new URL(apiBaseUrl);
  } catch {
    return null;
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return null;
  }
  const onDiscord = url.protocol === 'https:' && url.port === '' && DISCORD_HOSTS.has(url.hostname);
  const path = onDiscord ? url.pathname : pathUnder(url, base);
  const match = path === null ? null : WEBHOOK_PATH.exec(path);
  if (!match?.[1] || !match[2]) return null;
  return { id: match[1], token: match[2] };
}

/** Where a webhook is called: Discord's current API version under the configured host. */
export const webhookEndpoint = (apiBaseUrl: string, ref: WebhookRef): string =>
  `${apiBaseUrl}/api/v10/webhooks/${ref.id}/${ref.token}`;
