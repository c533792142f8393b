// The multipart body of a webhook message with attachments: `payload_json` (the message, with
// `attachments: [{ id, filename }]`), then `files[0]`, `files[1]`, ... Each media is probed
// first (its size, so the body has a Content-Length) and then fetched only when its turn comes,
// its bytes streamed from the media URL to Discord, never held whole.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { mediaKindOf } from '../shared/media.ts';
import { type createMediaFetcher, discard } from '../shared/media-fetch.ts';
import { fail, PublishFailure } from '../shared/outcome.ts';

type MediaFetcher = ReturnType<typeof createMediaFetcher>;

/**
 * The most a webhook message may carry, all files together: the upload limit of Discord's
 * most boosted servers (100 MB). A smaller server's own limit answers 413.
 */
export const DISCORD_MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
};

/**
 * The name Discord shows (and by whose extension it embeds a photo or a video): the URL's own
 * file name when it has an extension, else `media-<n>` with one from the media type.
 */
export function fileNameOf(url: string, index: number, contentType: string): string {
  let last = '';
  try {
    last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  } catch {
    last = '';
  }
  const safe = last.replace(/[^A-Za-z0-9._-]/g, '_').slice(-100);
  if (/\.[A-Za-z0-9]{2,5}$/.test(safe) && !safe.startsWith('.')) return safe;
  const extension = EXTENSIONS[contentType] ?? (mediaKindOf(url) === 'photo' ? 'jpg' : 'mp4');
  return `media-${index}.${extension}`;
}

interface Planned {
  url: string;
  bytes: number;
  contentType: string;
  filename: string;
}

export interface MessageForm {
  body: Readable;
  contentType: string;
  length: number;
}

/**
 * Only the bytes the probe announced, failing when the media changed size meanwhile. A media
 * fetch that fails here cuts the message's body short, so Discord cannot have made the message:
 * the failure says nothing was sent (the intent is cleared, the send may be tried again).
 */
async function* exactly(media: MediaFetcher, file: Planned): AsyncGenerator<Buffer> {
  let sent = 0;
  try {
    const got = await media.whole(file.url);
    try {
      for await (const chunk of got.body) {
        const buffer = chunk as Buffer;
        sent += buffer.length;
        if (sent > file.bytes) break;
        yield buffer;
      }
    } finally {
      discard(got.body);
    }
  } catch (error) {
    throw notSent(error);
  }
  if (sent !== file.bytes) {
    throw fail(
      'media_size_changed',
      `media ${file.url} is not the ${file.bytes} bytes announced`,
      false,
    );
  }
}

/** A media failure while the body was sent, marked as having sent nothing. */
function notSent(error: unknown): unknown {
  if (error instanceof PublishFailure) return new PublishFailure(error.outcome);
  const message = error instanceof Error ? error.message : String(error);
  return fail('media_fetch_failed', `media: ${message}`, true);
}

/**
 * The form of one message: `payload` (its JSON, `attachments` added) and the files of
 * `mediaUrls`, probed now, fetched while the body is sent.
 */
export async function messageForm(
  media: MediaFetcher,
  payload: Record<string, unknown>,
  mediaUrls: readonly string[],
): Promise<MessageForm> {
  const planned: Planned[] = [];
  for (const [index, url] of mediaUrls.entries()) {
    const info = await media.probe(url);
    planned.push({
      url,
      bytes: info.totalBytes,
      contentType: info.contentType,
      filename: fileNameOf(url, index, info.contentType),
    });
  }
  const total = planned.reduce((sum, file) => sum + file.bytes, 0);
  if (total > DISCORD_MAX_UPLOAD_BYTES) {
    throw fail(
      'media_too_large',
      `the files of this message are ${total} bytes: Discord takes at most ${DISCORD_MAX_UPLOAD_BYTES} per message`,
      false,
    );
  }
  const boundary = `----sp${randomBytes(12).toString('hex')}`;
  const attachments = planned.map((file, id) => ({ id, filename: file.filename }));
  const json = JSON.stringify({ ...payload, attachments });
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="payload_json"\r\nContent-Type: application/json\r\n\r\n${json}\r\n`,
  );
  const partHeads = planned.map((file, index) =>
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="files[${index}]"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
    ),
  );
  const crlf = Buffer.from('\r\n');
  const tail = Buffer.from(`--${boundary}--\r\n`);
  async function* parts() {
    yield head;
    for (const [index, file] of planned.entries()) {
      yield partHeads[index] as Buffer;
      yield* exactly(media, file);
      yield crlf;
    }
    yield tail;
  }
  const length =
    head.length +
    partHeads.reduce((sum, part) => sum + part.length, 0) +
    total +
    crlf.length * planned.length +
    tail.length;
  return {
    body: Readable.from(parts(), { objectMode: false }),
    contentType: `multipart/form-data; boundary=${boundary}`,
    length,
  };
}
