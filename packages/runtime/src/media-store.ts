import { createLocalMediaStore, createS3MediaStore } from '@social-publisher/adapter-media';
import type { Config } from '@social-publisher/config';
import type { MediaHosting } from '@social-publisher/domain';

const DAY_MS = 86_400_000;

/** Hosted media as MEDIA_* configure it: the store, the size limit and the retention. */
export function createMediaHosting(config: Pick<Config, 'media'>): MediaHosting {
  const { media } = config;
  const store =
    media.store === 's3'
      ? createS3MediaStore({
          // loadConfig refuses MEDIA_STORE=s3 without a bucket.
          bucket: media.s3.bucket ?? '',
          endpoint: media.s3.endpoint,
          region: media.s3.region,
          forcePathStyle: media.s3.forcePathStyle,
        })
      : createLocalMediaStore({ dir: media.dir });
  return {
    store,
    maxBytes: media.maxBytes,
    retentionMs: media.retentionDays * DAY_MS,
    quotaBytes: media.quotaBytes,
  };
}
