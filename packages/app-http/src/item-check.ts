/**
 * The schema check of one post of a batch (POST /posts/bulk, POST /posts/validate): its
 * problems are that post's, listed beside the rules' (the route answers 200 with them), not a
 * 400 for the whole request. Text the database cannot store is checked by the rules.
 */
import type { Problem } from '@social-publisher/domain';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { problemsFromSchemaIssues, type SchemaIssue } from './validation.ts';

/** `post` names the item itself (e.g. an item that is not an object). */
export const ITEM_CONTEXT = 'post';

export function compileItemCheck(schema: TSchema): (item: unknown) => Problem[] {
  const check = Compile(schema as Parameters<typeof Compile>[0]);
  return (item) =>
    check.Check(item)
      ? []
      : problemsFromSchemaIssues(check.Errors(item) as SchemaIssue[], ITEM_CONTEXT);
}
