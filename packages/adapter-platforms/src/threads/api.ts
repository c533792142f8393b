// Threads publishing wire calls (docs/platforms.md#threads; developers.facebook.com "Threads API:
// Posts", "Reply Management", "Troubleshooting"): Meta's Graph dialect on graph.threads.net/v1.0,
// the token in the query, containers created with a form.

import { type GraphFailure, metaGraphFailure, publishingQuota } from '../meta/failure.ts';
import { containerClient, graphClient } from '../meta/graph-api.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord } from '../shared/http.ts';
import { fail } from '../shared/outcome.ts';
import type { ThreadsSettings } from './settings.ts';

/** The Threads API has one version so far; its paths carry it. */
export const THREADS_API_VERSION = 'v1.0';

/** Throttling (4 application, 17 user, 32/613 rate): the target waits. Only without a subcode. */
const THROTTLE_CODES = new Set([4, 17, 32, 613]);
/**
 * 4279009: "Media Not Found" for a container created moments before (Threads is still processing
 * it); 2207052/2207003: the media could not be fetched in time; 2207001: server error.
 */
const RETRYABLE_SUBCODES = new Set([4279009, 2207052, 2207003, 2207001]);

export interface ContainerStatus {
  /** IN_PROGRESS, FINISHED, PUBLISHED, ERROR or EXPIRED. */
  status: string;
  errorMessage: string | null;
}

/** One of the profile's latest posts (or replies), as a lost answer is looked up. */
export interface RecentThread {
  id: string;
  text: string;
  createdAt: number;
}

export function createThreadsApi(
  config: ThreadsSettings,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  const graph = graphClient(runtime, signal, {
    baseUrl: config.apiBaseUrl,
    version: THREADS_API_VERSION,
    label: 'Threads',
    failure: threadsFailure,
  });

  // The token always goes in the query; parameters in the query, or in `form` for a POST.
  const { call, publishContainer, permalink } = containerClient(graph);

  const idOf = (body: Record<string, unknown>, what: string, retryable: boolean): string => {
    const id = asString(body.id);
    if (!id) throw fail('invalid_response', `Threads ${what} returned no id`, retryable);
    return id;
  };

  return {
    /** POST /{user-id}/threads -> container id (nothing is visible until it is published). */
    async createContainer(
      token: string,
      userId: string,
      params: Record<string, string>,
    ): Promise<string> {
      return idOf(await call('POST', `/${userId}/threads`, token, {}, params), 'container', true);
    },

    /** GET /{container-id}?fields=status,error_message */
    async containerStatus(token: string, containerId: string): Promise<ContainerStatus> {
      const body = await call('GET', `/${containerId}`, token, { fields: 'status,error_message' });
      return {
        status: asString(body.status) ?? '',
        errorMessage: asString(body.error_message) ?? null,
      };
    },

    /** POST /{user-id}/threads_publish?creation_id= -> the media id of the post. */
    async publish(token: string, userId: string, containerId: string): Promise<string> {
      return idOf(
        await publishContainer(token, userId, 'threads_publish', containerId),
        'threads_publish',
        false,
      );
    },

    /** GET /{media-id}?fields=permalink */
    permalink,

    /**
     * The profile's latest posts (`threads`) or replies (`replies`), newest first: where a post
     * whose answer was lost is looked for.
     */
    async recent(
      token: string,
      userId: string,
      edge: 'threads' | 'replies',
    ): Promise<RecentThread[]> {
      const body = await call('GET', `/${userId}/${edge}`, token, {
        fields: 'id,text,timestamp',
        limit: '25',
      });
      const data = Array.isArray(body.data) ? body.data.filter(isRecord) : [];
      return data.map((item) => ({
        id: asString(item.id) ?? '',
        text: asString(item.text) ?? '',
        // Graph writes +0000 offsets, which Date.parse reads.
        createdAt: Date.parse(asString(item.timestamp) ?? '') || 0,
      }));
    },
  };
}

/** Graph errors read the Meta way (meta/failure.ts), with Threads's codes and quota. */
export const threadsFailure: GraphFailure = metaGraphFailure({
  label: 'Threads',
  throttleCodes: THROTTLE_CODES,
  subcodes: {
    retryable: RETRYABLE_SUBCODES,
    // The profile's 24-hour publishing quota (250 posts) is used up. Threads reuses Instagram's
    // publishing error table for it (unconfirmed in Meta's Threads reference).
    quota: publishingQuota('Threads allows 250 published posts per rolling 24 hours'),
  },
});
