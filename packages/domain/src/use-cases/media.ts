/**
 * Hosted media: POST /media streams bytes into the MediaStore (counted and hashed on the way,
 * never held whole), GET/DELETE/list manage them per account, the public URL serves them to
 * the platforms, and the worker's sweep deletes what nothing needs any more.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';
import type { CoreDeps, MediaHosting } from '../deps.ts';
import {
  conflict,
  type DomainError,
  mediaQuotaExceeded,
  mediaTooLarge,
  mediaTypeMismatch,
  notFound,
  type Problem,
  unsupportedMediaType,
  validationFailed,
} from '../errors.ts';
import type { Media } from '../media-model.ts';
import type { AccountContext, Actor } from '../model.ts';
import type { ByteRange, StoredMedia } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import {
  isMediaContentType,
  isMediaName,
  MEDIA_CONTENT_TYPES,
  MEDIA_SNIFF_BYTES,
  type MediaContentType,
  mediaNameOf,
  startsAsMediaType,
} from '../rules/hosted-media.ts';
import { isUuid } from '../rules/shape.ts';
import { canAccessAccount } from './access.ts';
import { pageOf, pageRequest } from './paging.ts';

export interface UploadInput {
  body: Readable;
  /** The bare media type (no parameters). */
  contentType: string;
  filename?: string | null;
  /** Content-Length when the client sent one: a body announced too large is refused unread. */
  declaredBytes?: number | null;
}

/** The longest file name kept with an upload. */
export const MAX_FILENAME_LENGTH = 255;

/** The hosting, or the error every media use case answers without it. */
function hostingOf(deps: CoreDeps): Result<MediaHosting, DomainError> {
  return deps.media ? ok(deps.media) : err(notFound('media hosting (not configured)'));
}

/** Why the meter stopped an upload: each is answered with its own error. */
type Refusal = 'too_large' | 'over_quota' | 'type_mismatch';

/** Thrown into the upload's pipe when the meter refuses it: stops the store's write. */
class UploadRefused extends Error {
  override name = 'UploadRefused';
}

/**
 * Counts and hashes the bytes as they pass; fails the stream past `maxBytes` (MEDIA_MAX_BYTES),
 * past `quotaLeft` (what MEDIA_QUOTA_BYTES leaves the account), or when the first bytes are not
 * of `contentType` (held until MEDIA_SNIFF_BYTES have arrived, so nothing of a refused file
 * reaches the store before the check).
 */
function meter(contentType: MediaContentType, maxBytes: number, quotaLeft: number) {
  const hash = createHash('sha256');
  let size = 0;
  let refusal: Refusal | null = null;
  let head: Buffer | null = Buffer.alloc(0);
  const refuse = (why: Refusal) => {
    refusal = why;
    return new UploadRefused(why);
  };
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) return done(refuse('too_large'));
      if (size > quotaLeft) return done(refuse('over_quota'));
      hash.update(chunk);
      if (head === null) return done(null, chunk);
      head = Buffer.concat([head, chunk]);
      if (head.length < MEDIA_SNIFF_BYTES) return done();
      if (!startsAsMediaType(contentType, head)) return done(refuse('type_mismatch'));
      const first = head;
      head = null;
      done(null, first);
    },
    flush(done) {
      // A file shorter than the sniffed bytes: judged on the whole of it.
      if (head !== null && head.length > 0) {
        if (!startsAsMediaType(contentType, head)) return done(refuse('type_mismatch'));
        this.push(head);
      }
      done();
    },
  });
  return {
    stream,
    refusal: () => refusal,
    size: () => size,
    sha256: () => hash.digest('hex'),
  };
}

/** Control characters and path separators: a file name is shown, never used as a path. */
const hasUnsafeCharacter = (name: string): boolean =>
  [...name].some((char) => {
    const code = char.charCodeAt(0);
    return code < 0x20 || code === 0x7f || char === '/' || char === '\\';
  });

function uploadProblems(input: UploadInput): Problem[] {
  const problems: Problem[] = [];
  const { filename } = input;
  if (filename !== undefined && filename !== null) {
    if (filename.length === 0 || filename.length > MAX_FILENAME_LENGTH) {
      problems.push({
        field: 'filename',
        message: `must be 1 to ${MAX_FILENAME_LENGTH} characters`,
      });
    } else if (hasUnsafeCharacter(filename)) {
      problems.push({
        field: 'filename',
        message: 'must not hold control characters or path separators',
      });
    }
  }
  return problems;
}

/**
 * Streams an upload into the store and records it. The body is piped, not consumed by a
 * pipeline: a refusal (too large) stops reading without destroying the client's request, so
 * the HTTP layer can still answer it.
 */
export async function uploadMedia(
  deps: CoreDeps,
  ctx: AccountContext,
  input: UploadInput,
): Promise<Result<Media, DomainError>> {
  const hosting = hostingOf(deps);
  if (!hosting.ok) return hosting;
  const { store, maxBytes, retentionMs, quotaBytes } = hosting.value;
  const { contentType } = input;
  if (!isMediaContentType(contentType)) {
    return err(
      unsupportedMediaType(
        `POST /media takes ${Object.keys(MEDIA_CONTENT_TYPES).join(', ')} (or multipart/form-data with a part "file" of one of them), got ${contentType || 'no Content-Type'}`,
      ),
    );
  }
  const problems = uploadProblems(input);
  if (problems.length > 0) return err(validationFailed(problems));
  const declared = input.declaredBytes ?? null;
  if (declared !== null && declared > maxBytes) return err(mediaTooLarge(maxBytes));
  // What the account's media already hold: one sum over its rows (MEDIA_QUOTA_BYTES).
  const quotaLeft =
    quotaBytes === undefined
      ? Number.POSITIVE_INFINITY
      : quotaBytes - (await deps.repos.media.totalBytesByAccount(ctx.accountId));
  if (quotaBytes !== undefined && (quotaLeft <= 0 || (declared !== null && declared > quotaLeft))) {
    return err(mediaQuotaExceeded(quotaBytes));
  }

  const name = mediaNameOf(randomBytes(16), contentType);
  const metered = meter(contentType, maxBytes, quotaLeft);
  // The meter can fail before the store listens to it (a short body judged at its end while the
  // local store still creates its folder): with no listener that error would end the process.
  // The store still sees it (a failed stream fails its write), and the refusal is read below.
  metered.stream.on('error', () => {});
  const source = input.body;
  const failSource = (error: Error) => metered.stream.destroy(error);
  source.once('error', failSource);
  // A source that failed before this point (a multipart body cut short and already read to
  // its end) emits no error any more: it fails the upload at once.
  if (source.errored) failSource(source.errored);
  else source.pipe(metered.stream);
  try {
    await store.put(name, metered.stream, contentType);
  } catch (error) {
    source.unpipe(metered.stream);
    await store.delete(name).catch(() => {});
    const refusal = metered.refusal();
    if (refusal === 'too_large') return err(mediaTooLarge(maxBytes));
    if (refusal === 'over_quota') return err(mediaQuotaExceeded(quotaBytes ?? 0));
    if (refusal === 'type_mismatch') return err(mediaTypeMismatch(contentType));
    throw error;
  } finally {
    source.off('error', failSource);
  }
  if (metered.size() === 0) {
    await store.delete(name).catch(() => {});
    return err(validationFailed([{ field: 'body', message: 'is empty: send the file itself' }]));
  }
  const now = deps.clock.now();
  const media: Media = {
    id: deps.ids.newId(),
    accountId: ctx.accountId,
    createdBy: ctx.userId,
    name,
    contentType,
    size: metered.size(),
    sha256: metered.sha256(),
    filename: input.filename ?? null,
    createdAt: now,
    // An upload no post uses is swept like one whose posts are finished.
    expiresAt: new Date(now.getTime() + retentionMs),
  };
  let inserted: Result<Media, DomainError>;
  try {
    // Counted again with the insert, the account locked: uploads of one account that streamed
    // at the same time cannot pass the quota together.
    inserted = await deps.uow.run(async (repos) => {
      if (quotaBytes !== undefined) {
        const used = await repos.media.totalBytesByAccount(ctx.accountId);
        if (used + media.size > quotaBytes) return err(mediaQuotaExceeded(quotaBytes));
      }
      await repos.media.insert(media);
      return ok(media);
    });
  } catch (error) {
    await store.delete(name).catch(() => {});
    throw error;
  }
  if (!inserted.ok) await store.delete(name).catch(() => {});
  return inserted;
}

const isLive = (media: Media, now: Date): boolean =>
  media.expiresAt === null || media.expiresAt.getTime() > now.getTime();

/** One media of an account the caller may act in; expired ones are gone already. */
export async function getMedia(
  deps: CoreDeps,
  actor: Actor,
  id: string,
): Promise<Result<Media, DomainError>> {
  const media = isUuid(id) ? await deps.repos.media.findById(id) : null;
  const role = media ? await canAccessAccount(deps, actor, media.accountId) : null;
  return media && role && isLive(media, deps.clock.now()) ? ok(media) : err(notFound('media'));
}

export interface MediaPage {
  media: Media[];
  nextCursor: string | null;
}

/** An account's media, newest first, paged with the cursors of GET /posts. */
export async function listMediaPage(
  deps: CoreDeps,
  ctx: AccountContext,
  page: { limit: number; before?: string },
): Promise<Result<MediaPage, DomainError>> {
  const checked = pageRequest(page);
  if (!checked.ok) return checked;
  const { limit, before } = checked.value;
  const found = await deps.repos.media.listByAccount(ctx.accountId, {
    limit: limit + 1,
    ...(before ? { before } : {}),
  });
  const { items, nextCursor } = pageOf(found, limit);
  return ok({ media: items, nextCursor });
}

/** Deletes a media no unfinished post uses: its bytes, then its row. */
export async function deleteMedia(
  deps: CoreDeps,
  actor: Actor,
  id: string,
): Promise<Result<Media, DomainError>> {
  const hosting = hostingOf(deps);
  if (!hosting.ok) return hosting;
  const found = await getMedia(deps, actor, id);
  if (!found.ok) return found;
  const media = found.value;
  if (await deps.repos.media.inUse(media.id)) {
    return err(
      conflict('the media is used by a post that is not finished yet: cancel it or wait for it'),
    );
  }
  await hosting.value.store.delete(media.name);
  await deps.repos.media.delete(media.id);
  return ok(media);
}

/** What the public URL serves: the media and its bytes (or range), or null (404). */
export async function openPublicMedia(
  deps: CoreDeps,
  name: string,
  range?: ByteRange,
): Promise<{ media: Media; stored: StoredMedia } | null> {
  if (!deps.media || !isMediaName(name)) return null;
  const [media] = await deps.repos.media.findByNames([name]);
  if (!media || !isLive(media, deps.clock.now())) return null;
  const stored = await deps.media.store.get(name, range);
  return stored ? { media, stored } : null;
}

/** The public URL's metadata (HEAD, and the size a Range is checked against). */
export async function findPublicMedia(deps: CoreDeps, name: string): Promise<Media | null> {
  if (!deps.media || !isMediaName(name)) return null;
  const [media] = await deps.repos.media.findByNames([name]);
  return media && isLive(media, deps.clock.now()) ? media : null;
}

/**
 * The worker's pass: media whose posts are all finished get their expiry (the last one's end
 * plus MEDIA_RETENTION_DAYS), and expired ones are deleted from the store, then from the
 * database. A store failure leaves the row for the next pass.
 */
export async function sweepExpiredMedia(
  deps: CoreDeps,
  limit = 100,
): Promise<{ settled: number; deleted: number }> {
  if (!deps.media) return { settled: 0, deleted: 0 };
  const settled = await deps.repos.media.settleExpiry(deps.media.retentionMs);
  const expired = await deps.repos.media.listExpired(deps.clock.now(), limit);
  let deleted = 0;
  for (const media of expired) {
    try {
      await deps.media.store.delete(media.name);
      if (await deps.repos.media.delete(media.id)) deleted++;
    } catch (error) {
      deps.logger.warn(
        { mediaId: media.id, err: error instanceof Error ? error.message : String(error) },
        'deleting expired media failed; the next pass tries again',
      );
    }
  }
  return { settled, deleted };
}
