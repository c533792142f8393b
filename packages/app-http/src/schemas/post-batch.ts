/** Response shapes of dry runs and batches: one result per post, with its own status. */
import { MAX_PROBES_PER_REQUEST } from '@social-publisher/domain';
import { Type } from 'typebox';
import { ProblemSchema } from './error-responses.ts';
import { PostSchema } from './posts.ts';

export const ValidationSchema = Type.Object({
  valid: Type.Boolean({ description: 'true when creating this post would succeed now' }),
  problems: Type.Array(ProblemSchema, { description: 'Every problem found, by field' }),
  unchecked: Type.Optional(
    Type.Array(ProblemSchema, {
      description: `Media URLs not fetched because the request reached its limit of ${MAX_PROBES_PER_REQUEST} (valid says nothing about them); absent when every URL was fetched`,
    }),
  ),
});

const ItemError = Type.Object({
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Array(ProblemSchema)),
});

/** Where an item was in the request: `index` (bulk, from 0) or `row` and `line` (CSV). */
const Position = {
  index: Type.Optional(Type.Integer({ minimum: 0, description: 'Position in posts[] (bulk)' })),
  row: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Data row, 1 = first row after the header (CSV)' }),
  ),
  line: Type.Optional(Type.Integer({ minimum: 1, description: 'Line in the file (CSV)' })),
};

export const BatchResultSchema = Type.Object(
  {
    ...Position,
    status: Type.Integer({ description: '201 created, or the status POST /posts would answer' }),
    data: Type.Optional(PostSchema),
    error: Type.Optional(ItemError),
  },
  { description: 'One post: created (data) or refused (error, the usual error envelope content)' },
);

export const DryRunResultSchema = Type.Object({ ...Position, ...ValidationSchema.properties });

export const BatchSummarySchema = Type.Object({
  dry_run: Type.Boolean(),
  created: Type.Integer({ description: 'Posts created (0 in a dry run)' }),
  failed: Type.Integer({ description: 'Posts refused (dry run: that would be refused)' }),
  results: Type.Array(Type.Union([BatchResultSchema, DryRunResultSchema])),
});
