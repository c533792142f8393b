/**
 * Operability end to end (both modes). The request id of POST /posts follows the post into the
 * worker's log lines and its webhook delivery's. GET /metrics: after one published and one failed post, the counters
 * parsed with a Prometheus text-format parser say exactly that; the queue's job counts are
 * there; the route refuses a scrape without METRICS_TOKEN. In production mode the targets are
 * counted by the worker process, scraped on its METRICS_PORT server.
 */
import { startMetricsServer } from '@social-publisher/runtime';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { METRICS_TOKEN, type Mode, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface Family {
  name: string;
  type: string;
  metrics: Array<{ value?: string; labels?: Record<string, string>; count?: string }>;
}

const parse = (text: string) => parsePrometheusTextFormat(text) as Family[];

function sample(families: Family[], name: string, labels: Record<string, string>): number {
  const family = families.find((f) => f.name === name);
  const found = family?.metrics.find((m) =>
    Object.entries(labels).every(([key, value]) => m.labels?.[key] === value),
  );
  return Number(found?.value ?? found?.count ?? 0);
}

/**
 * A histogram's observation count. The parser validates every line but flattens a labelled
 * histogram's series into one, so the `_count` sample is read from the text itself.
 */
function histogramCount(text: string, name: string, labels: string): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(labels ? `${name}_count{${labels}} ` : `${name}_count `));
  return Number(line?.split(' ').at(-1) ?? 0);
}

const modes: Mode[] = ['production', 'embedded'];

describe.each(modes)('GET /metrics, %s mode', (mode) => {
  const e2e = useSystem(mode);

  it('one published and one failed post, counted exactly; no token, no metrics', async (context) => {
    const system = e2e.orSkip(context);
    const { api, tiktok } = system;
    const account = await api.call<{ data: { id: string } }>('POST', '/social-accounts', {
      platform: 'tiktok',
      external_id: `tt-metrics-${mode}`,
      display_name: 'metrics',
      access_token: 'token-metrics',
    });
    expect(account.status).toBe(201);
    const post = (content: string) =>
      api.call<{ data: { id: string } }>('POST', '/posts', {
        content,
        social_account_ids: [account.body.data.id],
        media_urls: [system?.media.url(`${content}.mp4`, 1024)],
      });
    const first = await post('metrics-ok');
    await waitFor('the first post published', async () => {
      const got = await api.call<{ data: { status: string } }>(
        'GET',
        `/posts/${first.body.data.id}`,
      );
      return got.body.data.status === 'published';
    });
    tiktok.script({
      error: 'spam_risk_user_banned_from_posting',
      path: '/v2/post/publish/video/init/',
    });
    const second = await post('metrics-refused');
    await waitFor('the second post failed', async () => {
      const got = await api.call<{ data: { status: string } }>(
        'GET',
        `/posts/${second.body.data.id}`,
      );
      return got.body.data.status === 'failed';
    });

    const refused = await fetch(`${api.baseUrl}/metrics`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'unauthorized' } });

    const scraped = await fetch(`${api.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain/);
    const apiText = await scraped.text();
    const apiFamilies = parse(apiText);
    expect(sample(apiFamilies, 'sp_posts_created_total', { kind: 'now' })).toBe(2);
    expect(
      histogramCount(
        apiText,
        'sp_http_request_duration_seconds',
        'method="POST",route="/posts",status="201"',
      ),
    ).toBe(2);
    expect(
      apiFamilies.find((f) => f.name === 'bullmq_job_count')?.metrics.map((m) => m.labels?.state),
    ).toEqual(expect.arrayContaining(['waiting', 'active', 'delayed', 'failed']));

    // The worker's own registry, as its METRICS_PORT serves it.
    const server = await startMetricsServer(system.workerMetrics, 0, '127.0.0.1');
    try {
      const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
      const families = parse(text);
      expect(
        sample(families, 'sp_targets_finished_total', { platform: 'tiktok', status: 'published' }),
      ).toBe(1);
      expect(
        sample(families, 'sp_targets_finished_total', {
          platform: 'tiktok',
          status: 'failed',
          error_code: 'spam_risk_user_banned_from_posting',
        }),
      ).toBe(1);
      expect(families.find((f) => f.name === 'sp_publish_lateness_seconds')?.type).toBe(
        'HISTOGRAM',
      );
      expect(histogramCount(text, 'sp_publish_lateness_seconds', '')).toBe(2);
      const notFound = await fetch(`http://127.0.0.1:${server.port}/other`);
      expect(notFound.status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('the X-Request-Id of POST /posts is on the publish job and webhook delivery log lines', async (context) => {
    const system = e2e.orSkip(context);
    const { api } = system;
    const account = await api.call<{ data: { id: string } }>('POST', '/social-accounts', {
      platform: 'tiktok',
      sandbox: true,
      display_name: 'request ids',
    });
    const hook = await api.call<{ data: { secret: string } }>('POST', '/webhooks', {
      url: system.receiver.url('/request-ids'),
      events: ['post.published'],
    });
    expect(hook.status).toBe(201);
    system.receiver.register('/request-ids', hook.body.data.secret);
    const requestId = `req-${mode}-${Date.now()}`;
    const created = await api.call<{ data: { id: string } }>(
      'POST',
      '/posts',
      {
        content: 'follow me',
        social_account_ids: [account.body.data.id],
        media_urls: [system.media.url('follow.mp4', 1024)],
      },
      { 'x-request-id': requestId },
    );
    expect(created.status).toBe(201);
    const postId = created.body.data.id;
    const tagged = () => system?.logs.filter((line) => line.request_id === requestId) ?? [];
    // The access log line (written once the answer is sent): what was asked, by which
    // address, how it ended.
    await waitFor('the access log line', () => tagged().some((line) => line.msg === 'request'));
    expect(tagged().find((line) => line.msg === 'request')).toMatchObject({
      method: 'POST',
      url: '/posts',
      status: 201,
      ip: '127.0.0.1',
    });
    await waitFor('the finished post logged with the request id', () =>
      tagged().some((line) => line.msg === 'post finished' && line.postId === postId),
    );
    await waitFor('the delivery job logged with the request id', () =>
      tagged().some((line) => line.msg === 'webhook delivered' && line.postId === postId),
    );
  });
});
