/**
 * A CSV file of posts, read as it streams (csv-parse), one row per post. Columns (header row
 * required, any order): content, scheduled_at (empty: now), social_account_ids or platforms,
 * media_urls, platform_options (JSON). Lists are separated by `|` or spaces.
 */
import type { Readable } from 'node:stream';
import { type BatchItem, errorMessage, type Problem } from '@social-publisher/domain';
import { CsvError, parse } from 'csv-parse';
import { formatBytes, HttpError } from '../errors.ts';

export const CSV_COLUMNS = [
  'content',
  'scheduled_at',
  'social_account_ids',
  'platforms',
  'media_urls',
  'platform_options',
] as const;

/** A row as read: its position, the post it describes, or the problems that stop it early. */
export interface CsvRow {
  row: number;
  line: number;
  item: BatchItem;
  problems: Problem[];
}

const list = (cell: string): string[] => cell.split(/[\s|]+/).filter((value) => value !== '');

function toItem(record: Record<string, string>): { item: BatchItem; problems: Problem[] } {
  const item: BatchItem = {};
  const problems: Problem[] = [];
  const cell = (name: string) => (record[name] ?? '').trim();
  if (cell('content') !== '') item.content = record.content ?? '';
  if (cell('scheduled_at') !== '') item.scheduled_at = cell('scheduled_at');
  for (const name of ['social_account_ids', 'platforms', 'media_urls'] as const) {
    if (cell(name) !== '') item[name] = list(cell(name));
  }
  if (cell('platform_options') !== '') {
    try {
      item.platform_options = JSON.parse(cell('platform_options'));
    } catch (error) {
      problems.push({
        field: 'platform_options',
        message: `is not valid JSON: ${errorMessage(error)}`,
      });
    }
  }
  return { item, problems };
}

function checkHeader(header: string[]): string[] {
  const unknown = header.filter((name) => !(CSV_COLUMNS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new HttpError(
      400,
      'invalid_csv',
      `unknown column(s) ${unknown.join(', ')}; the columns are ${CSV_COLUMNS.join(', ')}`,
    );
  }
  if (!header.includes('social_account_ids') && !header.includes('platforms')) {
    throw new HttpError(400, 'invalid_csv', 'the header needs social_account_ids or platforms');
  }
  return header;
}

/** How much more than the limit is read and discarded to answer a 413 cleanly. */
const DRAIN_FACTOR = 4;

/**
 * Reads what is left of the body and discards it, so that an early 413 reaches a client that
 * is still sending (closing a socket with unread data makes the client's kernel drop the answer
 * with a reset). Past `budget` more bytes the body is dropped instead: a client that keeps
 * sending that long is not owed the courtesy. The body timeout bounds a slow one.
 */
function drain(body: Readable, budget: number): Promise<void> {
  return new Promise((resolve) => {
    if (body.readableEnded || body.destroyed) {
      resolve();
      return;
    }
    let left = budget;
    body.unpipe();
    body.on('data', (chunk: Buffer) => {
      left -= chunk.length;
      if (left < 0) body.destroy();
    });
    body.once('end', () => resolve());
    body.once('close', () => resolve());
    body.resume();
  });
}

/** Reads every row (at most `maxRows`, and at most `maxBytes` of file) before anything is created. */
export async function readCsvRows(
  body: Readable,
  options: { maxRows: number; maxBytes: number },
): Promise<CsvRow[]> {
  let bytes = 0;
  const parser = parse({
    bom: true,
    columns: (header: string[]) => checkHeader(header.map((name) => name.trim().toLowerCase())),
    skip_empty_lines: true,
    info: true,
  });
  body.on('data', (chunk: Buffer) => {
    const before = bytes;
    bytes += chunk.length;
    if (bytes > options.maxBytes && before <= options.maxBytes) {
      parser.destroy(
        new HttpError(
          413,
          'payload_too_large',
          `the CSV is larger than the ${formatBytes(options.maxBytes)} limit of POST /posts/import; split the file`,
        ),
      );
    }
  });
  body.on('error', (error) => parser.destroy(error));
  body.pipe(parser);
  const rows: CsvRow[] = [];
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      if (rows.length === options.maxRows) {
        throw new HttpError(
          413,
          'too_many_rows',
          `a CSV import takes at most ${options.maxRows} rows; split the file`,
        );
      }
      rows.push({ row: rows.length + 1, line: info.lines, ...toItem(record) });
    }
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 413) {
      // The client is still sending: read the rest so it gets the answer, not a reset.
      await drain(body, options.maxBytes * DRAIN_FACTOR - bytes);
      throw error;
    }
    // The rest of the file is read and dropped (the byte limit above still applies), not
    // cut off: destroying the request closed the connection under the answer, so a client
    // reusing it (keep-alive) lost its next request.
    body.unpipe(parser);
    body.resume();
    if (error instanceof HttpError) throw error;
    if (error instanceof CsvError) {
      throw new HttpError(400, 'invalid_csv', `the CSV cannot be read: ${error.message}`);
    }
    throw error;
  }
  if (rows.length === 0) throw new HttpError(400, 'invalid_csv', 'the CSV has no rows');
  return rows;
}
