// YouTube Data API v3 resumable upload wire calls (docs/platforms.md#youtube; developers.google.com
// "YouTube Data API - Resumable Uploads").
import type { PublisherRuntime } from '../publisher-runtime.ts';
import {
  apiCall,
  asString,
  type HttpResult,
  header,
  isRecord,
  uploadCall,
} from '../shared/http.ts';
import { createMediaFetcher, discard, type MediaInfo } from '../shared/media-fetch.ts';
import { fail } from '../shared/outcome.ts';
import { youtubeFailure } from './failure.ts';
import type { YoutubeSettings } from './settings.ts';

export type { MediaInfo };

/** Where a resumable session stands. */
export type SessionState =
  | { kind: 'complete'; videoId: string }
  | { kind: 'incomplete'; next: number }
  /** 404/410: the session expired (about a week) and the upload must start over. */
  | { kind: 'gone' };

export function createYoutubeApi(
  config: YoutubeSettings,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  const mediaFetcher = createMediaFetcher(runtime, signal);

  /** 200/201 with the video resource, 308 incomplete (Range: bytes=0-N, none = 0 bytes). */
  function sessionAnswer(response: HttpResult): SessionState {
    if (response.status === 200 || response.status === 201) {
      const id = isRecord(response.json) ? asString(response.json.id) : undefined;
      if (!id) throw fail('invalid_response', 'YouTube returned no video id', true);
      return { kind: 'complete', videoId: id };
    }
    if (response.status === 308) {
      const range = header(response.headers, 'range');
      const match = range ? /bytes=(\d+)-(\d+)/.exec(range) : null;
      return { kind: 'incomplete', next: match?.[2] ? Number(match[2]) + 1 : 0 };
    }
    if (response.status === 404 || response.status === 410) return { kind: 'gone' };
    throw youtubeFailure(response);
  }

  return {
    /** Size and type of the media (a non-video type is sent as application/octet-stream). */
    async probeMedia(url: string): Promise<MediaInfo> {
      const media = await mediaFetcher.probe(url);
      return {
        totalBytes: media.totalBytes,
        contentType: media.contentType.startsWith('video/')
          ? media.contentType
          : 'application/octet-stream',
      };
    },

    /** commentThreads.insert: a top-level comment on the video -> the comment thread's id. */
    async insertComment(token: string, videoId: string, text: string): Promise<string> {
      const response = await apiCall(
        runtime,
        signal,
        {
          url: `${config.apiBaseUrl}/youtube/v3/commentThreads?part=snippet`,
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json; charset=UTF-8',
          },
          body: JSON.stringify({
            snippet: { videoId, topLevelComment: { snippet: { textOriginal: text } } },
          }),
        },
        'YouTube comment',
      );
      if (response.status < 200 || response.status >= 300) throw youtubeFailure(response);
      const id = isRecord(response.json) ? asString(response.json.id) : undefined;
      if (!id) throw fail('invalid_response', 'YouTube returned no comment thread id', false);
      return id;
    },

    /** POST the resumable session with the metadata -> session URL (Location). */
    async startSession(token: string, media: MediaInfo, metadata: unknown): Promise<string> {
      const response = await apiCall(
        runtime,
        signal,
        {
          url: `${config.apiBaseUrl}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`,
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json; charset=UTF-8',
            'x-upload-content-length': String(media.totalBytes),
            'x-upload-content-type': media.contentType,
          },
          body: JSON.stringify(metadata),
        },
        'YouTube session start',
      );
      const location = header(response.headers, 'location');
      if (response.status >= 200 && response.status < 300 && location) {
        return new URL(location, `${config.apiBaseUrl}/`).toString();
      }
      throw youtubeFailure(response);
    },

    /** PUT with `Content-Range: bytes *\/total`: how much of the upload YouTube holds. */
    async querySession(
      token: string,
      sessionUrl: string,
      totalBytes: number,
    ): Promise<SessionState> {
      const response = await apiCall(
        runtime,
        signal,
        {
          url: sessionUrl,
          method: 'PUT',
          headers: {
            authorization: `Bearer ${token}`,
            'content-length': '0',
            'content-range': `bytes */${totalBytes}`,
          },
        },
        'YouTube upload status',
      );
      return sessionAnswer(response);
    },

    /**
     * Streams the media from byte `offset` to the end straight into one PUT: the media response
     * body is the request body (never buffered whole), so memory stays flat whatever the size.
     */
    async upload(
      token: string,
      sessionUrl: string,
      mediaUrl: string,
      media: MediaInfo,
      offset: number,
    ): Promise<SessionState> {
      // Bytes from `offset` to the end (a server ignoring Range is skipped through as it streams).
      const { body: source } = await mediaFetcher.range(
        mediaUrl,
        offset,
        media.totalBytes - 1,
        media.totalBytes,
      );
      try {
        const headers: Record<string, string> = {
          authorization: `Bearer ${token}`,
          'content-type': media.contentType,
          'content-length': String(media.totalBytes - offset),
        };
        if (offset > 0) {
          headers['content-range'] = `bytes ${offset}-${media.totalBytes - 1}/${media.totalBytes}`;
        }
        const response = await uploadCall(
          runtime,
          signal,
          { url: sessionUrl, method: 'PUT', headers, body: source },
          'YouTube upload',
        );
        return sessionAnswer(response);
      } finally {
        discard(source);
      }
    },
  };
}
