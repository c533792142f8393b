/**
 * POST /posts/import: a CSV of up to 1,000 posts (Content-Type: text/csv), read as it streams;
 * per-row results with row and line numbers; `?dry_run=true` validates only. Every row is read
 * and checked for shape before the first post is created, so a file that cannot be read
 * creates nothing.
 */
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  createPostBatch,
  MAX_IMPORT_ROWS,
  validatePostBatch,
  validationFailed,
} from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf, contextOf } from '../context.ts';
import { HttpError } from '../errors.ts';
import { CSV_COLUMNS, type CsvRow, readCsvRows } from '../import/csv-rows.ts';
import { AUTH_ERRORS, BODY_ERRORS, Data, errors, WorkspaceQuery } from '../schemas/common.ts';
import { BatchSummarySchema } from '../schemas/post-batch.ts';
import { IdempotencyHeaders } from '../schemas/post-input.ts';
import { createdResults, dryRunResults } from './post-batch-results.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

/** 1,000 rows of a few hundred bytes each, with room to spare. */
const MAX_CSV_BYTES = 8 * 1024 * 1024;

const ImportQuery = Type.Object({
  ...WorkspaceQuery.properties,
  dry_run: Type.Optional(
    Type.Boolean({ default: false, description: 'true: validate every row, create nothing' }),
  ),
});

export const postImportRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps, idempotency },
) => {
  // The body stays a stream: rows are parsed as they arrive, never the whole file as one string.
  app.addContentTypeParser(['text/csv', 'application/csv'], (_request, payload, done) => {
    done(null, payload);
  });

  app.post(
    '/posts/import',
    {
      config: { bodyTimeout: 'import' },
      schema: {
        tags: ['Posts'],
        summary: 'Import posts from a CSV file',
        description: `Content-Type: text/csv. A header row, then one post per row (at most ${MAX_IMPORT_ROWS}). Columns, in any order: ${CSV_COLUMNS.join(', ')}; social_account_ids or platforms is required; lists are separated by | or spaces; scheduled_at empty = publish now; platform_options is JSON. Each row is created on its own and has its own result (row = data row from 1, line = line in the file). dry_run=true validates every row as POST /posts/validate does and creates nothing. One Idempotency-Key covers the whole file.`,
        security: SECURED,
        consumes: ['text/csv'],
        headers: IdempotencyHeaders,
        querystring: ImportQuery,
        response: {
          200: Data(BatchSummarySchema, 'One result per row, in file order'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403, 409),
        },
      },
    },
    async (request, reply) => {
      // Other bodies (JSON) were parsed by the app's own parsers: not a file to read.
      if (typeof (request.body as Readable | undefined)?.pipe !== 'function') {
        throw new HttpError(
          415,
          'unsupported_media_type',
          'POST /posts/import takes the file itself with Content-Type: text/csv',
        );
      }
      const query = request.query as { workspace_id?: string; dry_run?: boolean };
      const ctx = await contextOf(deps, request, query.workspace_id);
      const rows = await readCsvRows(request.body as Readable, {
        maxRows: MAX_IMPORT_ROWS,
        maxBytes: MAX_CSV_BYTES,
      });
      const positions = rows.map(({ row, line }) => ({ row, line }));
      if (query.dry_run === true) {
        const checked = await validatePostBatch(deps, ctx, rows.map(readable));
        const validations = checked.map((validation, at) => withCellProblems(validation, rows[at]));
        return { data: dryRunResults(validations, positions) };
      }
      const run = async () => {
        // Rows whose cells could not be read are refused as they are; the others are created.
        const readableRows = rows.filter((row) => row.problems.length === 0);
        const created = await createPostBatch(deps, ctx, readableRows.map(readable), {
          requestId: request.id,
        });
        let next = 0;
        const outcomes = rows.map((row) =>
          row.problems.length > 0
            ? { ok: false as const, error: validationFailed(row.problems) }
            : (created[next++] ?? { ok: false as const, error: validationFailed([]) }),
        );
        return { statusCode: 200, body: { data: createdResults(outcomes, positions) } };
      };
      const key = request.headers['idempotency-key'] as string | undefined;
      if (key === undefined) return (await run()).body;
      const actor = actorOf(request);
      const response = await idempotency.run(
        `${actor.userId}|${actor.keyAccountId ?? 'jwt'}|POST /posts/import`,
        key,
        rows.map(({ item, problems }) => ({ item, problems })),
        run,
      );
      if (response.replayed) reply.header('Idempotent-Replayed', 'true');
      return response.body as Awaited<ReturnType<typeof run>>['body'];
    },
  );
};

const readable = (row: CsvRow) => row.item;

/** A cell that could not be read (bad JSON) is a problem of its row, beside the rest. */
function withCellProblems(
  validation: { valid: boolean; problems: Array<{ field: string; message: string }> },
  row: CsvRow | undefined,
) {
  if (!row || row.problems.length === 0) return validation;
  return { valid: false, problems: [...row.problems, ...validation.problems] };
}
