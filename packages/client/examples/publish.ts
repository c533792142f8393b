/**
 * Publishes one post through a sandbox connection with the typed client:
 *   node packages/client/examples/publish.ts
 * Against a running API with SOCIAL_PUBLISHER_URL and SOCIAL_PUBLISHER_API_KEY set; without
 * them, it starts the whole service in this process (embedded mode, throwaway data) first.
 * Sandbox connections never reach the platform, so this is safe against any server.
 */
import { createSocialPublisherClient } from '@social-publisher/client';
import { startEmbeddedServer } from '../scripts/embedded-server.ts';

const IN_FLIGHT = ['scheduled', 'queued', 'publishing'];
const TIMEOUT_MS = 30_000;

/** The API named by the environment, or else one started here (closed when done). */
async function api(): Promise<{
  baseUrl: string;
  apiKey: string;
  embedded: boolean;
  close(): Promise<void>;
}> {
  const url = process.env.SOCIAL_PUBLISHER_URL;
  const key = process.env.SOCIAL_PUBLISHER_API_KEY;
  if (url && key) return { baseUrl: url, apiKey: key, embedded: false, close: async () => {} };
  if (url || key)
    throw new Error('set both SOCIAL_PUBLISHER_URL and SOCIAL_PUBLISHER_API_KEY, or neither');
  return { ...(await startEmbeddedServer()), embedded: true };
}

const server = await api();
const { baseUrl, apiKey } = server;
process.stdout.write(
  `API: ${baseUrl}${server.embedded ? ' (embedded, started by this script)' : ''}\n`,
);

try {
  const client = createSocialPublisherClient({ baseUrl, apiKey });

  const account = await client.POST('/social-accounts', {
    body: { platform: 'tiktok', sandbox: true, display_name: 'Example sandbox' },
  });
  if (!account.data) throw new Error(`connecting: ${JSON.stringify(account.error)}`);
  process.stdout.write(`connected sandbox account ${account.data.data.id}\n`);

  const created = await client.POST('/posts', {
    body: {
      content: 'Hello from the Social Publisher client',
      // TikTok posts need a video or a photo; a sandbox target never downloads it.
      media_urls: ['https://example.com/clip.mp4'],
      social_account_ids: [account.data.data.id],
    },
  });
  if (!created.data) throw new Error(`publishing: ${JSON.stringify(created.error)}`);
  let post = created.data.data;

  // Publishing happens in the background: follow the post until it settles.
  const deadline = Date.now() + TIMEOUT_MS;
  while (IN_FLIGHT.includes(post.status)) {
    if (Date.now() > deadline) throw new Error(`post ${post.id} still ${post.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const read = await client.GET('/posts/{id}', { params: { path: { id: post.id } } });
    if (!read.data) throw new Error(`reading the post: ${JSON.stringify(read.error)}`);
    post = read.data.data;
  }

  process.stdout.write(`post ${post.id}: ${post.status}\n`);
  for (const target of post.post_targets) {
    process.stdout.write(
      `  ${target.platform}: ${target.status} platform_post_id=${target.platform_post_id ?? '-'} platform_url=${target.platform_url ?? '-'}\n`,
    );
  }
  if (post.status !== 'published') process.exitCode = 1;
} finally {
  await server.close();
}
