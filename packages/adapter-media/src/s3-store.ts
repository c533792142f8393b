/**
 * MEDIA_STORE=s3: any S3-compatible store (AWS S3, MinIO, R2, ...). Uploads go as a multipart
 * upload (lib-storage's Upload) fed from the stream, a few parts in memory at a time; reads are
 * GETs with a Range. Credentials come from the SDK's default chain (AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY, a profile, an instance role...).
 */
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  type ByteRange,
  type MediaStore,
  type StoredMedia,
  translateOutage,
} from '@social-publisher/domain';

export interface S3MediaStoreOptions {
  bucket: string;
  /** MEDIA_S3_ENDPOINT: another store than AWS's (MinIO, R2...); null: AWS. */
  endpoint: string | null;
  region: string;
  /** MEDIA_S3_FORCE_PATH_STYLE: `endpoint/bucket/key` URLs (most self-hosted stores want it). */
  forcePathStyle: boolean;
  /** Tests only: fixed credentials instead of the default chain. */
  credentials?: S3ClientConfig['credentials'];
}

/** 8 MiB parts, two in flight: an upload holds about 16 MiB, whatever its size. */
const PART_SIZE = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

const isNotFound = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

/** The total size in a Content-Range (`bytes 0-99/1234`). */
const totalOf = (contentRange: string | undefined): number | null => {
  const total = contentRange?.split('/')[1];
  return total === undefined || total === '*' ? null : Number(total);
};

export function createS3MediaStore(options: S3MediaStoreOptions): MediaStore {
  const client = new S3Client({
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // Checksums only where the API requires them: S3-compatible stores do not all take the
    // SDK's default trailing checksums (aws-chunked bodies), and the sha256 is ours anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  // Every command (the multipart upload's too) passes this outermost step, after the SDK's
  // retries: a store that cannot be reached leaves as the domain's DependencyUnavailableError.
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw translateOutage('media store', error);
      }
    },
    { step: 'initialize', name: 'reportOutages' },
  );
  const Bucket = options.bucket;

  return {
    kind: 's3',

    async put(key: string, body: Readable, contentType: string): Promise<void> {
      const upload = new Upload({
        client,
        params: { Bucket, Key: key, Body: body, ContentType: contentType },
        partSize: PART_SIZE,
        queueSize: PARTS_IN_FLIGHT,
        // A failed upload's parts are aborted, not left to be billed.
        leavePartsOnError: false,
      });
      // A body that fails (too large, client gone) ends the upload too.
      const abort = () => {
        upload.abort().catch(() => {});
      };
      body.once('error', abort);
      try {
        await upload.done();
      } finally {
        body.off('error', abort);
      }
    },

    async get(key: string, range?: ByteRange): Promise<StoredMedia | null> {
      try {
        const answer = await client.send(
          new GetObjectCommand({
            Bucket,
            Key: key,
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        const size = range ? totalOf(answer.ContentRange) : (answer.ContentLength ?? null);
        if (size === null || !answer.Body) throw new Error('the store answered without a size');
        return { body: answer.Body as Readable, size };
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },

    async head(key: string): Promise<{ size: number } | null> {
      try {
        const answer = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return { size: answer.ContentLength ?? 0 };
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },

    async delete(key: string): Promise<void> {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },

    async close(): Promise<void> {
      client.destroy();
    },
  };
}
