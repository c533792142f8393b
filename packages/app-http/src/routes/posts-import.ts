/**
 * POST /posts/import: a CSV of up to 1,000 posts (Content-Type: text/csv), read as it streams;
 * per-row results with row and line numbers; `?dry_run=true` validates only. Every row is read
 * and checked for shape before the first post is created, so a file that cannot be read
 * creates nothing.
 */
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createPostBatch, MAX_IMPORT_ROWS, validatePostBatch } from '@social-publisher/domain';
import type { FastifySchemaCompiler } from 'fastify';
import { Type } from 'typebox';
import { clientGoneSignal } from '../client-gone.ts';
import { actorOf, contextOf } from '../context.ts';
import { HttpError } from '../errors.ts';
import { CSV_COLUMNS, readCsvRows } from '../import/csv-rows.ts';
import { Data, WorkspaceQuery } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors } from '../schemas/error-responses.ts';
import { BatchSummarySchema } from '../schemas/post-batch.ts';
import { IdempotencyHeaders } from '../schemas/post-input.ts';
import { validatorCompiler } from '../validator-compiler.ts';
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

const CSV_MEDIA_TYPES = ['text/csv', 'application/csv'] as const;

/** The file as the document shows it: one text per accepted media type. */
const CsvBody = {
  content: Object.fromEntries(
    CSV_MEDIA_TYPES.map((type) => [
      type,
      {
        schema: Type.String({
          description: `A header row, then one post per row (columns: ${CSV_COLUMNS.join(', ')})`,
        }),
      },
    ]),
  ),
};

/**
 * The body is a stream, not the string the document shows: its rows are checked as they are
 * read, so the body's schema is for the document only. Query and headers are checked as usual.
 */
const streamedBodyCompiler: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? (value) => ({ value }) : validatorCompiler(route);

export const postImportRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps, idempotency },
) => {
  // The body stays a stream: rows are parsed as they arrive, never the whole file as one string.
  app.addContentTypeParser([...CSV_MEDIA_TYPES], (_request, payload, done) => {
    done(null, payload);
  });

  app.post(
    '/posts/import',
    {
      config: { bodyTimeout: 'import' },
      schema: {
        tags: ['Posts'],
        operationId: 'importPosts',
        summary: 'Import posts from a CSV file',
        description: `Content-Type: text/csv. A header row, then one post per row (at most ${MAX_IMPORT_ROWS}). Columns, in any order: ${CSV_COLUMNS.join(', ')}; social_account_ids or platforms is required; lists are separated by | or spaces; scheduled_at empty = publish now; platform_options is JSON. Each row is created on its own and has its own result (row = data row from 1, line = line in the file). dry_run=true validates every row as POST /posts/validate does and creates nothing. One Idempotency-Key covers the whole file.`,
        security: SECURED,
        headers: IdempotencyHeaders,
        body: CsvBody,
        querystring: ImportQuery,
        response: {
          200: Data(BatchSummarySchema, 'One result per row, in file order'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403, 409),
        },
      },
      validatorCompiler: streamedBodyCompiler,
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
      // A cell that could not be read (bad JSON) is a problem of its row, beside the rules'.
      const entries = rows.map(({ item, problems }) => ({ input: item, problems }));
      if (query.dry_run === true) {
        const signal = clientGoneSignal(request, reply);
        return {
          data: dryRunResults(await validatePostBatch(deps, ctx, entries, { signal }), positions),
        };
      }
      const run = async () => {
        const outcomes = await createPostBatch(deps, ctx, entries, { requestId: request.id });
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
