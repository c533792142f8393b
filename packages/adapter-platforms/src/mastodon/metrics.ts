// The numbers of published Mastodon statuses (docs/platforms.md#mastodon;
// docs.joinmastodon.org "statuses/:id"): GET /api/v1/statuses/:id on the connection's instance,
// one status a call. A token must hold read:statuses for the instance to answer it (it refuses a
// token without with 403); the connections made here were granted only what publishing needs,
// so on that refusal the status is asked again without a token, which a public or unlisted one
// answers. A 404 with the token is a deleted status: gone; without it the status may as well be
// private, so it is only unavailable.
import type {
  MetricsItemResult,
  MetricsReadItem,
  PlatformMetricsReader,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerCall } from '../shared/bearer-call.ts';
import { apiCall, type HttpResult, isRecord } from '../shared/http.ts';
import { goneResult, metricsFrom, rawOf, readBatch, readResult } from '../shared/metrics-read.ts';
import { PublishFailure } from '../shared/outcome.ts';
import { mastodonFailure } from './api.ts';
import { instanceOf, instanceRuntime } from './instance.ts';
import type { MastodonSettings } from './settings.ts';

const COUNT_KEYS = ['favourites_count', 'reblogs_count', 'replies_count'];
const LABEL = 'Mastodon status';

export function createMastodonMetricsReader(
  _settings: MastodonSettings,
  baseRuntime: PublisherRuntime,
): PlatformMetricsReader {
  // The instance is the user's choice: every call goes through the SSRF guard.
  const runtime = instanceRuntime(baseRuntime);
  return {
    batchSize: 1,
    reports: ['likes', 'shares', 'comments'],
    // read:statuses helps (private statuses) but is not needed: see above.
    scopes: [],
    read: ({ connection, items, signal }) =>
      readBatch(async () => {
        const instance = instanceOf(connection.platformData);
        const results = new Map<string, MetricsItemResult>();
        for (const item of items) {
          const status = `${instance}/api/v1/statuses/${encodeURIComponent(item.platformPostId)}`;
          results.set(
            item.targetId,
            await readStatus(runtime, signal, status, connection.accessToken, item),
          );
        }
        return results;
      }),
  };
}

async function readStatus(
  runtime: PublisherRuntime,
  signal: AbortSignal,
  url: string,
  token: string,
  item: MetricsReadItem,
): Promise<MetricsItemResult> {
  let answer: HttpResult;
  try {
    answer = await bearerCall(
      runtime,
      signal,
      { method: 'GET', url, token, what: LABEL, headers: { accept: 'application/json' } },
      mastodonFailure,
    );
  } catch (error) {
    const code =
      error instanceof PublishFailure && error.outcome.kind === 'failed' ? error.outcome.code : '';
    if (code === 'not_found') return goneResult(`${LABEL} ${item.platformPostId}: not found`);
    if (code !== 'forbidden') throw error;
    return readPublicly(runtime, signal, url, item);
  }
  return statusResult(answer);
}

/** The status asked without a token: what anyone may see of it. */
async function readPublicly(
  runtime: PublisherRuntime,
  signal: AbortSignal,
  url: string,
  item: MetricsReadItem,
): Promise<MetricsItemResult> {
  const answer = await apiCall(
    runtime,
    signal,
    {
      url,
      method: 'GET',
      headers: { accept: 'application/json' },
    },
    LABEL,
  );
  if (answer.status === 404) {
    return {
      kind: 'unavailable',
      message: `${LABEL} ${item.platformPostId} is not public and the connection may not read statuses (read:statuses), or it was deleted`,
    };
  }
  if (answer.status < 200 || answer.status >= 300) throw mastodonFailure(answer, LABEL);
  return statusResult(answer);
}

function statusResult(answer: HttpResult): MetricsItemResult {
  const status = isRecord(answer.json) ? answer.json : {};
  return readResult(
    metricsFrom(status, {
      likes: 'favourites_count',
      shares: 'reblogs_count',
      comments: 'replies_count',
    }),
    rawOf(status, COUNT_KEYS),
  );
}
