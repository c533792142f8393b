// The repository calls a Bluesky publish makes (docs/platforms.md#bluesky):
// com.atproto.repo.uploadBlob (raw bytes), createRecord (with our record key) and getRecord
// (the lookup of a record a lost answer may have created).

import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord, uploadTimeoutMs } from '../shared/http.ts';
import type { MediaBody } from '../shared/media-fetch.ts';
import { fail } from '../shared/outcome.ts';
import type { BlueskySettings } from './settings.ts';
import { mapped, XrpcAnswerError, xrpc } from './xrpc.ts';

export const POST_COLLECTION = 'app.bsky.feed.post';

/** A record's strong reference: what a reply points at. */
export interface StrongRef {
  uri: string;
  cid: string;
}

/** The blob object uploadBlob answers, put as it is into the embed. */
export type BlobRef = Record<string, unknown>;

const strongRefOf = (json: unknown, what: string): StrongRef => {
  const uri = isRecord(json) ? asString(json.uri) : undefined;
  const cid = isRecord(json) ? asString(json.cid) : undefined;
  if (!uri || !cid) throw fail('invalid_response', `Bluesky ${what} gave no uri and cid`, true);
  return { uri, cid };
};

/** A create refused because the key is taken: the record is already there. */
const alreadyExists = (error: XrpcAnswerError): boolean =>
  error.answer.status === 409 || /already exists/i.test(error.answer.message);

export function createBlueskyApi(
  settings: BlueskySettings,
  runtime: PublisherRuntime,
  signal: AbortSignal,
) {
  const base = settings.serviceUrl;
  const uploadTimeout = uploadTimeoutMs(runtime.requestTimeoutMs);

  const api = {
    /** POST uploadBlob: the bytes as they stream from the media URL -> the blob to embed. */
    async uploadBlob(token: string, media: MediaBody): Promise<BlobRef> {
      const response = await mapped('uploadBlob', () =>
        xrpc(base, runtime, signal, {
          nsid: 'com.atproto.repo.uploadBlob',
          method: 'POST',
          token,
          raw: { body: media.body, contentType: media.contentType, length: media.length },
          timeoutMs: uploadTimeout,
        }),
      );
      const blob = isRecord(response.json) ? response.json.blob : undefined;
      if (!isRecord(blob)) throw fail('invalid_response', 'Bluesky uploadBlob gave no blob', true);
      return blob;
    },

    /**
     * POST createRecord under `rkey`. A key already taken means an earlier send got through:
     * the record there is the answer.
     */
    async createPost(
      token: string,
      repo: string,
      rkey: string,
      record: Record<string, unknown>,
    ): Promise<StrongRef> {
      try {
        const response = await xrpc(base, runtime, signal, {
          nsid: 'com.atproto.repo.createRecord',
          method: 'POST',
          token,
          json: { repo, collection: POST_COLLECTION, rkey, record },
        });
        return strongRefOf(response.json, 'createRecord');
      } catch (error) {
        if (error instanceof XrpcAnswerError && alreadyExists(error)) {
          const found = await api.findPost(token, repo, rkey);
          if (found) return found;
        }
        throw error;
      }
    },

    /** GET getRecord -> the record under `rkey`, or null when there is none. */
    async findPost(token: string, repo: string, rkey: string): Promise<StrongRef | null> {
      try {
        const response = await xrpc(base, runtime, signal, {
          nsid: 'com.atproto.repo.getRecord',
          method: 'GET',
          token,
          query: { repo, collection: POST_COLLECTION, rkey },
        });
        return strongRefOf(response.json, 'getRecord');
      } catch (error) {
        if (
          error instanceof XrpcAnswerError &&
          (error.answer.error === 'RecordNotFound' || error.answer.status === 404)
        ) {
          return null;
        }
        throw error;
      }
    },
  };
  return api;
}
