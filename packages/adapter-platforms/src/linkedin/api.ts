// LinkedIn Posts, Images and Videos API wire calls (docs/platforms.md#linkedin;
// learn.microsoft.com/linkedin "Posts API", "Images API", "Videos API").
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import { asString, type HttpResult, header, isRecord, uploadCall } from '../shared/http.ts';
import type { MediaBody } from '../shared/media-fetch.ts';
import {
  clientTokenEndpoint,
  publisherRefresher,
  type RefusalRule,
  refreshGrant,
  type TokenRenewal,
} from '../shared/oauth.ts';
import { fail } from '../shared/outcome.ts';
import { linkedinFailure } from './failure.ts';
import type { LinkedinSettings } from './settings.ts';

export interface VideoPart {
  uploadUrl: string;
  firstByte: number;
  lastByte: number;
}

export interface VideoUpload {
  video: string;
  uploadToken: string;
  parts: VideoPart[];
}

export function createLinkedinApi(
  config: LinkedinSettings,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  /** Rest.li 2.0 and the API version on every /rest call. */
  const rest = bearerClient(runtime, signal, {
    baseUrl: config.apiBaseUrl,
    label: 'LinkedIn',
    headers: { 'linkedin-version': config.apiVersion, 'x-restli-protocol-version': '2.0.0' },
    failure: linkedinFailure,
  });

  /** A /rest call; a refusal naming `author` is read for that author (linkedinFailure). */
  const call = (
    method: 'GET' | 'POST',
    path: string,
    token: string,
    what: string,
    body?: unknown,
    author?: string,
  ): Promise<HttpResult> =>
    rest(method, path, token, what, {
      json: body,
      failure: (response, label) => linkedinFailure(response, label, author),
    });

  /** `{ value: {...} }` of an action call. */
  const actionValue = (response: HttpResult, what: string): Record<string, unknown> => {
    const value = isRecord(response.json) ? response.json.value : undefined;
    if (!isRecord(value)) throw fail('invalid_response', `LinkedIn ${what} gave no value`, true);
    return value;
  };

  async function put(
    token: string,
    uploadUrl: string,
    media: MediaBody,
    what: string,
    author: string,
  ): Promise<HttpResult> {
    const response = await uploadCall(
      runtime,
      signal,
      {
        url: uploadUrl,
        method: 'PUT',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/octet-stream',
          ...(media.length === undefined ? {} : { 'content-length': String(media.length) }),
        },
        body: media.body,
      },
      `LinkedIn ${what}`,
    );
    if (response.status >= 200 && response.status < 300) return response;
    throw linkedinFailure(response, `LinkedIn ${what}`, author);
  }

  return {
    /** POST /rest/posts -> the post URN (header x-restli-id). */
    async createPost(token: string, post: Record<string, unknown>): Promise<string> {
      const author = String(post.author);
      const response = await call('POST', '/rest/posts', token, 'post', post, author);
      const urn =
        header(response.headers, 'x-restli-id') ?? header(response.headers, 'x-linkedin-id');
      if (!urn) throw fail('invalid_response', 'LinkedIn post gave no x-restli-id', false);
      return urn;
    },

    /**
     * POST /rest/socialActions/{post urn}/comments as `actor` -> the comment URN ($URN in the
     * body, x-restli-id in the headers).
     */
    async createComment(token: string, actor: string, object: string, text: string) {
      const path = `/rest/socialActions/${encodeURIComponent(object)}/comments`;
      const body = { actor, object, message: { text } };
      const response = await call('POST', path, token, 'comment', body, actor);
      const json = isRecord(response.json) ? response.json : {};
      const urn =
        asString(json.$URN) ?? header(response.headers, 'x-restli-id') ?? asString(json.id);
      if (!urn) throw fail('invalid_response', 'LinkedIn comment gave no id', false);
      return urn;
    },

    /**
     * GET /rest/posts?q=author: the author's latest posts, newest first (needs r_member_social
     * or r_organization_social, which many apps do not have: a 403 then).
     */
    async recentPosts(token: string, author: string, count = 20): Promise<RecentPost[]> {
      const query = new URLSearchParams({
        q: 'author',
        author,
        count: String(count),
        sortBy: 'LAST_MODIFIED',
      });
      const response = await call('GET', `/rest/posts?${query}`, token, 'posts by author');
      const elements =
        isRecord(response.json) && Array.isArray(response.json.elements)
          ? response.json.elements
          : [];
      return elements.filter(isRecord).map((element) => ({
        urn: asString(element.id) ?? '',
        commentary: asString(element.commentary) ?? '',
        createdAt: typeof element.createdAt === 'number' ? element.createdAt : 0,
      }));
    },

    /** POST /rest/images?action=initializeUpload -> upload URL and image URN. */
    async initializeImage(token: string, owner: string) {
      const what = 'image initializeUpload';
      const response = await call(
        'POST',
        '/rest/images?action=initializeUpload',
        token,
        what,
        { initializeUploadRequest: { owner } },
        owner,
      );
      const value = actionValue(response, what);
      const uploadUrl = asString(value.uploadUrl);
      const image = asString(value.image);
      if (!uploadUrl || !image) {
        throw fail('invalid_response', `LinkedIn ${what} gave no uploadUrl/image`, true);
      }
      return { uploadUrl, image };
    },

    /** PUT the image bytes (streamed) to its upload URL. */
    async uploadImage(token: string, uploadUrl: string, media: MediaBody, owner: string) {
      await put(token, uploadUrl, media, 'image upload', owner);
    },

    /** POST /rest/videos?action=initializeUpload -> video URN, upload token, parts. */
    async initializeVideo(token: string, owner: string, fileSizeBytes: number) {
      const what = 'video initializeUpload';
      const response = await call(
        'POST',
        '/rest/videos?action=initializeUpload',
        token,
        what,
        {
          initializeUploadRequest: {
            owner,
            fileSizeBytes,
            uploadCaptions: false,
            uploadThumbnail: false,
          },
        },
        owner,
      );
      const value = actionValue(response, what);
      const video = asString(value.video);
      const instructions = Array.isArray(value.uploadInstructions) ? value.uploadInstructions : [];
      const parts: VideoPart[] = [];
      for (const item of instructions) {
        if (!isRecord(item)) continue;
        const uploadUrl = asString(item.uploadUrl);
        const firstByte = Number(item.firstByte);
        const lastByte = Number(item.lastByte);
        if (!uploadUrl || !Number.isSafeInteger(firstByte) || !Number.isSafeInteger(lastByte)) {
          continue;
        }
        parts.push({ uploadUrl, firstByte, lastByte });
      }
      if (!video || parts.length === 0) {
        throw fail('invalid_response', `LinkedIn ${what} gave no video/uploadInstructions`, true);
      }
      // A single-part upload may come without a token (sent back empty).
      return { video, uploadToken: asString(value.uploadToken) ?? '', parts } as VideoUpload;
    },

    /** PUT one part (streamed) -> its ETag, the part id finalizeUpload wants. */
    async uploadVideoPart(token: string, part: VideoPart, media: MediaBody, owner: string) {
      const response = await put(token, part.uploadUrl, media, 'video part upload', owner);
      const etag = header(response.headers, 'etag');
      if (!etag) throw fail('invalid_response', 'LinkedIn video part upload gave no ETag', true);
      return etag;
    },

    /** POST /rest/videos?action=finalizeUpload with the parts' ETags in order. */
    async finalizeVideo(token: string, upload: VideoUpload, etags: string[], owner: string) {
      await call(
        'POST',
        '/rest/videos?action=finalizeUpload',
        token,
        'video finalizeUpload',
        {
          finalizeUploadRequest: {
            video: upload.video,
            uploadToken: upload.uploadToken,
            uploadedPartIds: etags,
          },
        },
        owner,
      );
    },

    /** GET /rest/videos/{urn} -> status (WAITING_UPLOAD, PROCESSING, AVAILABLE, PROCESSING_FAILED). */
    async videoStatus(token: string, video: string): Promise<string> {
      const response = await call(
        'GET',
        `/rest/videos/${encodeURIComponent(video)}`,
        token,
        `video ${video}`,
      );
      return (isRecord(response.json) ? asString(response.json.status) : undefined) ?? '';
    },
  };
}

export interface RecentPost {
  urn: string;
  commentary: string;
  /** Epoch ms. */
  createdAt: number;
}

/**
 * Refusals that end the grant: invalid_grant, and an invalid_request about the refresh token
 * being invalid, expired or revoked (as the connector's refresh reads them; unconfirmed wording).
 */
const linkedinRefused: RefusalRule = (error, description) =>
  error === 'invalid_grant' ||
  (error === 'invalid_request' &&
    /refresh.token/i.test(description ?? '') &&
    !/missing/i.test(description ?? ''));

/**
 * POST /oauth/v2/accessToken (form, client_id + client_secret): the code exchange and the
 * refresh share it. Null when the client id or secret is not set.
 */
export function linkedinTokenEndpoint(config: LinkedinSettings, runtime: PublisherRuntime) {
  const { clientId, clientSecret } = config;
  return clientTokenEndpoint(
    runtime,
    `${config.tokenBaseUrl}/oauth/v2/accessToken`,
    { client_id: clientId ?? '', client_secret: clientSecret ?? '' },
    { configured: Boolean(clientId && clientSecret), refused: linkedinRefused },
  );
}

/**
 * grant_type=refresh_token (programmatic refresh tokens exist only for approved apps). Null when
 * the client id or secret is not set.
 */
export function linkedinRenewal(
  config: LinkedinSettings,
  runtime: PublisherRuntime,
): TokenRenewal | null {
  const renew = refreshGrant(linkedinTokenEndpoint(config, runtime), 'LinkedIn');
  if (!renew) return null;
  return async (refreshToken, signal) => {
    const tokens = await renew(refreshToken, signal);
    // LinkedIn repeats the refresh token (or sends none: the stored one stays valid).
    return { ...tokens, refreshToken: tokens.refreshToken || null };
  };
}

/** The publisher's renewal on a 401: the same request as the connector's refresh. */
export const linkedinRefresher = (config: LinkedinSettings, runtime: PublisherRuntime) =>
  publisherRefresher(linkedinRenewal(config, runtime));
