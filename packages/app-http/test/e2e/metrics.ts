/** Reading a post's numbers through the API: refresh, then wait for the worker's read. */
import { expect } from 'vitest';
import { type Api, waitFor } from './system.ts';

export interface TargetMetricsJson {
  target_id: string;
  platform: string;
  platform_post_id: string;
  state: string;
  taken_at: string | null;
  metrics: Record<string, number | null>;
  error: string | null;
}

export interface MetricsJson {
  post_id: string;
  totals: Record<string, number | null>;
  targets: TargetMetricsJson[];
}

/** POST /posts/:id/metrics/refresh, then GET until every target has left `pending`. */
export async function refreshAndRead(api: Api, postId: string, timeoutMs = 15_000) {
  const path = `/posts/${postId}/metrics`;
  const asked = await api.call<{ data: MetricsJson }>('POST', `${path}/refresh`);
  expect(asked.status, JSON.stringify(asked.body)).toBe(202);
  return waitFor(
    `the numbers of post ${postId}`,
    async () => {
      const got = await api.call<{ data: MetricsJson }>('GET', path);
      const targets = got.body.data.targets;
      return targets.length > 0 && targets.every((t) => t.state !== 'pending')
        ? got.body.data
        : undefined;
    },
    timeoutMs,
  );
}
