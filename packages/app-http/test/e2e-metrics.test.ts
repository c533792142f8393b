/**
 * Numbers over time, end to end in both modes, on the eight networks the system's fakes serve:
 * a post published by the real publisher, POST /posts/:id/metrics/refresh, the worker's read
 * pass calling the platform's real read, and GET /posts/:id/metrics showing what the fake
 * answered under our names; the history keeps the snapshot, and the daily sums count it.
 * (Bluesky and Mastodon are read in their own e2e files, where their accounts are connected.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PINTEREST_BOARD_ID } from '../../testkit/src/index.ts';
import { type MetricsJson, refreshAndRead } from './e2e/metrics.ts';
import { type Mode, type System, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface ReadCase {
  platform: string;
  connection(system: System): Record<string, string>;
  media: 'image' | 'video';
  options?: Record<string, Record<string, unknown>>;
  /** Sets one number on the fake for the published post: ours is `name`, its value 41. */
  setNumber(system: System, platformPostId: string): void;
  name: string;
  /**
   * What the platform says instead of numbers, when the connection may not read them (a
   * LinkedIn member's posts need r_member_social, granted to approved apps only).
   */
  refused?: RegExp;
}

const LIKES = 41;

const CASES: ReadCase[] = [
  {
    platform: 'twitter',
    connection: (system) => ({ external_id: system.x.user.id, access_token: 'x-e2e-token' }),
    media: 'image',
    setNumber: (system, id) => system.x.metrics.numbers.set(id, { like_count: LIKES }),
    name: 'likes',
  },
  {
    platform: 'facebook',
    connection: (system) => ({
      external_id: system.facebook.pages[0]?.id ?? '',
      access_token: 'facebook-page-e2e-token',
    }),
    media: 'image',
    setNumber: (system, id) => system.facebook.engagement.set(id, { reactions: LIKES }),
    name: 'likes',
  },
  {
    platform: 'linkedin',
    connection: (system) => ({
      external_id: `urn:li:person:${system.linkedin.member.sub}`,
      access_token: 'linkedin-e2e-token',
    }),
    media: 'image',
    setNumber: (system, id) => system.linkedin.postNumbers.set(id, { likes: LIKES }),
    name: 'likes',
    refused: /r_member_social.*reconnect the account/,
  },
  {
    platform: 'pinterest',
    connection: (system) => ({
      external_id: system.pinterest.user.id,
      access_token: 'pinterest-e2e-token',
    }),
    media: 'image',
    options: { pinterest: { board_id: PINTEREST_BOARD_ID } },
    setNumber: (system, id) => system.pinterest.analytics.set(id, { SAVE: LIKES }),
    name: 'saves',
  },
  {
    platform: 'threads',
    connection: (system) => ({
      external_id: system.threads.profile.id,
      access_token: 'threads-e2e-token',
    }),
    media: 'image',
    setNumber: (system, id) => system.threads.insights.set(id, { likes: LIKES }),
    name: 'likes',
  },
  {
    platform: 'tiktok',
    connection: () => ({ external_id: 'tt-open-id-e2e', access_token: 'token-tiktok-e2e' }),
    media: 'video',
    setNumber: (system, id) => system.tiktok.counts.set(id, { like_count: LIKES }),
    name: 'likes',
  },
  {
    platform: 'instagram',
    connection: () => ({ external_id: '17841400000000001', access_token: 'token-instagram-e2e' }),
    media: 'video',
    setNumber: (system, id) => system.instagram.insights.set(id, { likes: LIKES }),
    name: 'likes',
  },
  {
    platform: 'youtube',
    connection: () => ({ external_id: 'UC-e2e-channel', access_token: 'token-youtube-e2e' }),
    media: 'video',
    setNumber: (system, id) => system.youtube.statistics.set(id, { likeCount: LIKES }),
    name: 'likes',
  },
];

let sequence = 0;

describe.each(['production', 'embedded'] as Mode[])('metrics end to end, %s mode', (mode) => {
  const e2e = useSystem(mode, { env: { METRICS_READ_INTERVAL_MS: '100' } });
  const connections = new Map<string, string>();

  beforeAll(async () => {
    if (e2e.skipReason()) return;
    const system = e2e.get();
    for (const { platform, connection } of CASES) {
      const created = await system.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
        platform,
        display_name: `${platform} metrics`,
        ...connection(system),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      connections.set(platform, created.body.data.id);
    }
  }, 60_000);

  for (const readCase of CASES) {
    it(`${readCase.platform}: a published post's numbers are read from the platform on refresh`, async (context) => {
      const system = e2e.orSkip(context);
      const { api, media } = system;
      const tag = `metrics-${readCase.platform}-${Date.now().toString(36)}-${++sequence}`;
      const created = await api.call<{ data: { id: string } }>('POST', '/posts', {
        content: `Numbers ${tag}`,
        social_account_ids: [connections.get(readCase.platform)],
        media_urls: [
          readCase.media === 'video'
            ? media.url(`${tag}.mp4`, 300_000)
            : media.url(`${tag}.jpg`, 40_000),
        ],
        ...(readCase.options ? { platform_options: readCase.options } : {}),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.data.id;
      const path = `/posts/${id}/metrics`;
      const pending = await waitFor(
        `${readCase.platform} post to publish`,
        async () => {
          const got = await api.call<{ data: MetricsJson }>('GET', path);
          return got.body.data.targets.length > 0 ? got.body.data : undefined;
        },
        20_000,
      );
      const target = pending.targets[0];
      expect(target?.state).toBe('pending');
      readCase.setNumber(system, target?.platform_post_id ?? '');

      const read = await refreshAndRead(api, id);
      const [numbers] = read.targets;
      if (readCase.refused) {
        expect(numbers?.state, JSON.stringify(numbers)).toBe('unavailable');
        expect(numbers?.error).toMatch(readCase.refused);
        expect(numbers?.metrics[readCase.name]).toBeNull();
        return;
      }
      expect(numbers?.state, JSON.stringify(numbers)).toBe('fresh');
      // Operators see the read counted by platform and outcome, and how late it was.
      const exposition = await system.workerMetrics.render();
      expect(exposition).toContain(
        `sp_metric_reads_total{platform="${readCase.platform}",outcome="fresh"}`,
      );
      expect(exposition).toContain('sp_metric_read_lateness_seconds_count');
      expect(numbers?.error).toBeNull();
      expect(numbers?.metrics[readCase.name]).toBe(LIKES);
      expect(read.totals[readCase.name]).toBe(LIKES);
      for (const value of Object.values(numbers?.metrics ?? {})) {
        if (value !== null) expect(Number.isInteger(value) && value >= 0).toBe(true);
      }

      const history = await api.call<{ data: Array<{ target_id: string; raw: object }> }>(
        'GET',
        `${path}/history`,
      );
      expect(history.status).toBe(200);
      expect(history.body.data).toHaveLength(1);
      expect(history.body.data[0]?.target_id).toBe(numbers?.target_id);
      expect(Object.keys(history.body.data[0]?.raw ?? {}).length).toBeGreaterThan(0);

      const today = new Date().toISOString().slice(0, 10);
      const daily = await api.call<{ data: Array<{ date: string; posts: number }> }>(
        'GET',
        `/analytics/daily?social_account_id=${connections.get(readCase.platform)}&from=${today}&to=${today}`,
      );
      expect(daily.status, JSON.stringify(daily.body)).toBe(200);
      expect(daily.body.data[0]).toMatchObject({ date: today });
      expect(daily.body.data[0]?.posts).toBeGreaterThanOrEqual(1);
    }, 40_000);
  }
});
