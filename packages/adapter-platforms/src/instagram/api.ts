// Instagram Graph API content publishing wire calls (docs/platforms.md#instagram; developers.facebook.com
// "Instagram Platform / Content Publishing", "IG Container").

import { type GraphFailure, metaGraphFailure, publishingQuota } from '../meta/failure.ts';
import { containerClient, graphClient } from '../meta/graph-api.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString } from '../shared/http.ts';
import { fail } from '../shared/outcome.ts';
import type { InstagramSettings } from './settings.ts';

/**
 * Throttling codes (4 application, 17 user, 341 application limit, 32/613 page/custom rate):
 * the target waits. Only when no subcode says more: Meta's error table reuses code 4 for
 * subcode 2207051 (activity restricted as spam), which is a policy block.
 */
const THROTTLE_CODES = new Set([4, 17, 32, 341, 613]);
/**
 * 2207052 media fetch failed, 2207003 media download timed out, 2207001 and 2207032 ("Instagram
 * server error. Try again." / "Create media fail, please try to re-create media" in Meta's error
 * table, which calls 2207001 a server error).
 */
const RETRYABLE_SUBCODES = new Set([2207052, 2207003, 2207001, 2207032]);

export interface ContainerStatus {
  statusCode: string;
  status: string | null;
}

export function createInstagramApi(
  config: InstagramSettings,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  const graph = graphClient(runtime, signal, {
    baseUrl: config.apiBaseUrl,
    version: config.graphVersion,
    label: 'Instagram',
    failure: graphFailure,
  });

  // The token always goes in the query; parameters in the query, or in `form` for a POST.
  const { call, publishContainer, permalink } = containerClient(graph);

  return {
    /** POST /{ig-user-id}/media -> container id. */
    async createContainer(
      token: string,
      igUserId: string,
      params: Record<string, string>,
    ): Promise<string> {
      const body = await call('POST', `/${igUserId}/media`, token, {}, params);
      const id = asString(body.id);
      if (!id) throw fail('invalid_response', 'Instagram returned no container id', true);
      return id;
    },

    /** GET /{container-id}?fields=status_code,status */
    async containerStatus(token: string, containerId: string): Promise<ContainerStatus> {
      const body = await call('GET', `/${containerId}`, token, { fields: 'status_code,status' });
      return {
        statusCode: asString(body.status_code) ?? '',
        status: asString(body.status) ?? null,
      };
    },

    /** POST /{ig-user-id}/media_publish?creation_id= -> media id. */
    async publish(token: string, igUserId: string, containerId: string): Promise<string> {
      const body = await publishContainer(token, igUserId, 'media_publish', containerId);
      const id = asString(body.id);
      if (!id) throw fail('invalid_response', 'Instagram media_publish returned no media id', true);
      return id;
    },

    /** POST /{ig-media-id}/comments?message= -> the comment id. */
    async comment(token: string, mediaId: string, message: string): Promise<string> {
      const body = await call('POST', `/${mediaId}/comments`, token, { message });
      const id = asString(body.id);
      if (!id) throw fail('invalid_response', 'Instagram comment returned no id', false);
      return id;
    },

    /**
     * GET /{ig-user-id}/media?fields=id,caption,timestamp: the account's latest media, newest
     * first (what finds the media a container became when its media_publish answer was lost).
     */
    async recentMedia(
      token: string,
      igUserId: string,
    ): Promise<Array<{ id: string; caption: string | null }>> {
      const body = await call('GET', `/${igUserId}/media`, token, {
        fields: 'id,caption,timestamp',
        limit: '25',
      });
      const data = Array.isArray(body.data) ? (body.data as Array<Record<string, unknown>>) : [];
      return data.flatMap((item) => {
        const id = asString(item.id);
        return id ? [{ id, caption: asString(item.caption) ?? null }] : [];
      });
    },

    /** GET /{ig-media-id}/comments?fields=id,text: the media's comments (the newest page). */
    async comments(token: string, mediaId: string): Promise<Array<{ id: string; text: string }>> {
      const body = await call('GET', `/${mediaId}/comments`, token, {
        fields: 'id,text',
        limit: '50',
      });
      const data = Array.isArray(body.data) ? (body.data as Array<Record<string, unknown>>) : [];
      return data.flatMap((item) => {
        const id = asString(item.id);
        return id ? [{ id, text: asString(item.text) ?? '' }] : [];
      });
    },

    /** GET /{media-id}?fields=permalink */
    permalink,
  };
}

/** Graph errors read the Meta way (meta/failure.ts), with Instagram's codes and quota. */
export const graphFailure: GraphFailure = metaGraphFailure({
  label: 'Instagram',
  throttleCodes: THROTTLE_CODES,
  subcodes: {
    retryable: RETRYABLE_SUBCODES,
    // The account's 24-hour publishing quota (50 posts) is used up.
    quota: publishingQuota('Instagram allows 50 published posts per rolling 24 hours'),
  },
});
