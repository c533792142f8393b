import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import fjs from '/work/main/node_modules/.pnpm/fast-json-stringify@7.3.6/node_modules/fast-json-stringify/index.js';
import { PostSchema, presentPost } from '../src/schemas/posts.ts';

const N = 10_000;
const now = Date.UTC(2030, 0, 1);
const posts = Array.from({ length: N }, (_, n) => {
  const id = randomUUID();
  const at = new Date(now + n * 1000);
  return {
    id,
    accountId: randomUUID(),
    createdBy: randomUUID(),
    content: `Post number ${n}: a short caption with a link https://example.com/p/${n}`,
    mediaUrls: [`https://cdn.example.com/media/${n}.mp4`],
    platformOptions: { tiktok: { tiktokPrivacy: 'SELF_ONLY' } },
    thread: [],
    firstComment: null,
    scheduledAt: null,
    status: 'published',
    createdAt: at,
    updatedAt: at,
    seriesId: null,
    rejectionReason: null,
    targets: [0, 1, 2].map((position) => ({
      id: randomUUID(),
      postId: id,
      platform: ['tiktok', 'instagram', 'youtube'][position],
      socialAccountId: randomUUID(),
      sandbox: false,
      status: 'published',
      attempts: 1,
      errorCode: null,
      errorMessage: null,
      retryable: null,
      platformPostId: `platform-${position}-${id}`,
      platformUrl: null,
      threadPostIds: [],
      firstCommentId: null,
      resumeState: null,
      leaseExpiresAt: null,
      publishedAt: at,
      unpublish: null,
      updatedAt: at,
    })),
  };
});
const serialize = fjs(Type.Object({ data: Type.Array(PostSchema) }) as never);
const item = fjs(PostSchema as never);
const g = (globalThis as { gc?: () => void }).gc ?? (() => {});
const m: Record<string, number[]> = { fjs: [], json: [], fjsBuf: [], jsonBuf: [], joinBuf: [] };
for (let i = 0; i < 12; i++) {
  for (const k of Object.keys(m)) {
    g();
    const t = performance.now();
    const body = { data: posts.map(presentPost as never) };
    const s = k.startsWith('fjs')
      ? serialize(body)
      : k.startsWith('join')
        ? `{"data":[${body.data.map((p) => item(p)).join(',')}]}`
        : JSON.stringify(body);
    if (k.endsWith('Buf')) Buffer.from(s);
    m[k]?.push(performance.now() - t);
  }
}
for (const [k, v] of Object.entries(m)) {
  v.sort((a, b) => a - b);
  console.log(k, 'median', v[6]?.toFixed(0), 'min', v[0]?.toFixed(0));
}

import { isDeepStrictEqual } from 'node:util';

const body = { data: posts.map(presentPost as never) };
console.log(
  'same value:',
  isDeepStrictEqual(JSON.parse(serialize(body)), JSON.parse(JSON.stringify(body))),
  'same bytes:',
  serialize(body) === JSON.stringify(body),
);
