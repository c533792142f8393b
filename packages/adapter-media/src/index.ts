export { createLocalMediaStore } from './local-store.ts';
export { createS3MediaStore, type S3MediaStoreOptions } from './s3-store.ts';
