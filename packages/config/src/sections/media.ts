/** Hosted media (POST /media): where the bytes live, how large and how long. */
import type { Env } from '../env-readers.ts';

export interface MediaConfig {
  /** MEDIA_STORE: `local` (files under `dir`) or `s3` (any S3-compatible store). */
  store: 'local' | 's3';
  /** MEDIA_DIR: the local store's directory (default: DATA_DIR/media). */
  dir: string;
  /** MEDIA_MAX_BYTES: the largest upload (default 4 GiB). */
  maxBytes: number;
  /** MEDIA_RETENTION_DAYS: kept this long after the last post using a media is finished. */
  retentionDays: number;
  /** MEDIA_QUOTA_BYTES: the bytes one account's media may hold together (default 50 GiB). */
  quotaBytes: number;
  s3: {
    /** MEDIA_S3_BUCKET: required with MEDIA_STORE=s3. */
    bucket: string | null;
    /** MEDIA_S3_ENDPOINT: another store than AWS S3 (MinIO, R2...). */
    endpoint: string | null;
    /** MEDIA_S3_REGION (default us-east-1). */
    region: string;
    /** MEDIA_S3_FORCE_PATH_STYLE: bucket in the path, not the host name (most self-hosted stores). */
    forcePathStyle: boolean;
  };
}

const GIB = 1024 ** 3;

/** MEDIA_*: the hosted media's store and limits; MEDIA_S3_BUCKET is required with s3. */
export function readMedia(e: Env, dataDir: string): MediaConfig {
  const store = e.oneOf('MEDIA_STORE', ['local', 's3'] as const, 'local');
  const bucket = e.string('MEDIA_S3_BUCKET');
  if (store === 's3' && bucket === null) {
    e.report('MEDIA_S3_BUCKET', 'is required with MEDIA_STORE=s3', null);
  }
  return {
    store,
    dir: e.string('MEDIA_DIR') ?? `${dataDir.replace(/\/+$/, '')}/media`,
    maxBytes: e.int('MEDIA_MAX_BYTES', 4 * GIB, 1, 1024 * GIB),
    retentionDays: e.int('MEDIA_RETENTION_DAYS', 30, 1, 3650),
    quotaBytes: e.int('MEDIA_QUOTA_BYTES', 50 * GIB, 1, 1024 * 1024 * GIB),
    s3: {
      bucket,
      endpoint: e.url('MEDIA_S3_ENDPOINT', ['https:', 'http:']),
      region: e.string('MEDIA_S3_REGION') ?? 'us-east-1',
      forcePathStyle: e.bool('MEDIA_S3_FORCE_PATH_STYLE', false),
    },
  };
}
