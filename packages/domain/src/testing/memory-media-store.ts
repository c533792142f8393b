import { Readable } from 'node:stream';
import type { ByteRange, MediaStore, StoredMedia } from '../ports/index.ts';

/** The MediaStore port in memory, for tests of the use cases and the HTTP layer. */
export class MemoryMediaStore implements MediaStore {
  readonly kind = 'memory' as const;
  readonly objects = new Map<string, { bytes: Buffer; contentType: string }>();

  async put(key: string, body: Readable, contentType: string): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
    this.objects.set(key, { bytes: Buffer.concat(chunks), contentType });
  }

  async get(key: string, range?: ByteRange): Promise<StoredMedia | null> {
    const object = this.objects.get(key);
    if (!object) return null;
    const bytes = range ? object.bytes.subarray(range.start, range.end + 1) : object.bytes;
    return { body: Readable.from([bytes]), size: object.bytes.length };
  }

  async head(key: string): Promise<{ size: number } | null> {
    const object = this.objects.get(key);
    return object ? { size: object.bytes.length } : null;
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }

  async close(): Promise<void> {}
}
