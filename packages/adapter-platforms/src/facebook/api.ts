// Facebook Page publishing wire calls (docs/platforms.md#facebook; developers.facebook.com
// "Pages API: Posts", "Page Photos", "Video API"), with a Page access token.
import { type GraphFailure, metaGraphFailure, metaUsageRetryAt } from '../meta/failure.ts';
import { graphClient } from '../meta/graph-api.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord } from '../shared/http.ts';
import { fail } from '../shared/outcome.ts';
import type { FacebookSettings } from './settings.ts';

/** Throttling: 4 app, 17 user, 32 Page, 613 custom rate limit. */
const THROTTLE_CODES = new Set([4, 17, 32, 613]);

export interface RecentPagePost {
  id: string;
  message: string;
  createdAt: number;
}

export interface VideoStatus {
  /** Graph's video_status: processing, ready, error, upload_failed... */
  status: string;
  error: string | null;
}

export function createFacebookApi(
  config: FacebookSettings,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  const graph = graphClient(runtime, signal, {
    baseUrl: config.apiBaseUrl,
    version: config.graphVersion,
    label: 'Facebook',
    failure: facebookFailure,
  });

  /** GET: parameters and token in the query; POST: both in the form. */
  function call(
    method: 'GET' | 'POST',
    path: string,
    token: string,
    params: Record<string, string> = {},
  ) {
    const withToken: Record<string, string> = { ...params, access_token: token };
    return graph(method, path, method === 'GET' ? { query: withToken } : { form: withToken });
  }

  const idOf = (body: Record<string, unknown>, what: string, key = 'id'): string => {
    const id = asString(body[key]);
    if (!id) throw fail('invalid_response', `Facebook ${what} gave no ${key}`, false);
    return id;
  };

  return {
    /** POST /{page}/feed (message, link or attached_media) -> the post id `{page}_{post}`. */
    async feed(token: string, pageId: string, params: Record<string, string>): Promise<string> {
      return idOf(await call('POST', `/${pageId}/feed`, token, params), 'post');
    },

    /** POST /{page}/photos with a URL Facebook fetches: published -> its post id; else its photo id. */
    async photo(token: string, pageId: string, params: Record<string, string>): Promise<string> {
      const body = await call('POST', `/${pageId}/photos`, token, params);
      return params.published === 'false' ? idOf(body, 'photo') : idOf(body, 'photo', 'post_id');
    },

    /** GET /{object-id}/comments?fields=id,message: the newest comments of a post or video. */
    async comments(
      token: string,
      objectId: string,
    ): Promise<Array<{ id: string; message: string }>> {
      const body = await call('GET', `/${objectId}/comments`, token, {
        fields: 'id,message',
        order: 'reverse_chronological',
        limit: '50',
      });
      const data = Array.isArray(body.data) ? (body.data as Array<Record<string, unknown>>) : [];
      return data.flatMap((item) =>
        typeof item.id === 'string'
          ? [{ id: item.id, message: typeof item.message === 'string' ? item.message : '' }]
          : [],
      );
    },

    /** POST /{object-id}/comments (message), as the Page -> the comment id. */
    async comment(token: string, objectId: string, message: string): Promise<string> {
      return idOf(await call('POST', `/${objectId}/comments`, token, { message }), 'comment');
    },

    /** POST /{page}/videos with file_url: Facebook fetches and processes it -> the video id. */
    async video(token: string, pageId: string, params: Record<string, string>): Promise<string> {
      return idOf(await call('POST', `/${pageId}/videos`, token, params), 'video');
    },

    /** GET /{video}?fields=status */
    async videoStatus(token: string, videoId: string): Promise<VideoStatus> {
      const body = await call('GET', `/${videoId}`, token, { fields: 'status' });
      const status = isRecord(body.status) ? body.status : {};
      const phase = [status.processing_phase, status.uploading_phase, status.publishing_phase].find(
        (p) => isRecord(p) && isRecord(p.error),
      ) as Record<string, Record<string, unknown>> | undefined;
      return {
        status: asString(status.video_status) ?? 'processing',
        error: phase ? (asString(phase.error?.message) ?? 'processing failed') : null,
      };
    },

    /** The Page's latest posts (or videos), newest first: what a lost answer is looked up in. */
    async recent(
      token: string,
      pageId: string,
      edge: 'posts' | 'videos',
    ): Promise<RecentPagePost[]> {
      const fields = edge === 'posts' ? 'id,message,created_time' : 'id,description,created_time';
      const body = await call('GET', `/${pageId}/${edge}`, token, { fields, limit: '25' });
      const data = Array.isArray(body.data) ? body.data.filter(isRecord) : [];
      return data.map((item) => ({
        id: asString(item.id) ?? '',
        message: asString(edge === 'posts' ? item.message : item.description) ?? '',
        // Graph writes +0000 offsets, which Date.parse reads.
        createdAt: Date.parse(asString(item.created_time) ?? '') || 0,
      }));
    },
  };
}

/**
 * Graph errors read the Meta way (meta/failure.ts), with Facebook's codes: the code alone (no
 * subcode is read), the message as `Facebook: <Graph's message>`. 190: the Page token (no
 * refresh: the connection expires). 10 and 200-299: permissions, 368: blocked for policy, 506:
 * duplicate post: permanent. Throttling waits for Meta's estimated_time_to_regain_access
 * (minutes) from the usage headers.
 */
export const facebookFailure: GraphFailure = metaGraphFailure({
  label: 'Facebook',
  throttleCodes: THROTTLE_CODES,
  retryAt: metaUsageRetryAt,
  permanent: (code) =>
    code === 506
      ? 'duplicate_content'
      : code === 10 || (code >= 200 && code <= 299) || code === 368
        ? String(code)
        : undefined,
  messages: 'labelled',
  // AuthSession says "Facebook 190: ..." itself; Page tokens have no refresh, so say what to do.
  tokenNote: 'a Page token cannot be renewed: reconnect the Page',
});
