/**
 * Fastify's validator compiler: TypeBox's (convert the query string, path and headers to the
 * schema's types, then check), except that a number there must be written as one. TypeBox's
 * conversion reads `2.5` as the integer 2 and `1e1`, `0x10` or ` 3` as numbers: a caller who
 * sent `?limit=2.5` gets a 400 saying limit must be an integer, not a page of 2.
 *
 * Every string of the body, query string and path (object keys too) is also checked for text
 * the database cannot store (U+0000, unpaired surrogates; JSON nested too deep): one check for
 * every route, each problem named by its path, instead of a database error.
 */
import { validateStorableText } from '@social-publisher/domain';
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { type SchemaIssue, STORABLE_TEXT_KEYWORD } from './validation.ts';

const INTEGER_TEXT = /^-?\d+$/;
const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

type Strict = Array<[name: string, pattern: RegExp]>;

/** The top-level properties of an object schema whose text must match a pattern. */
function strictNumericProperties(schema: unknown): Strict {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | null)
    ?.properties;
  if (properties === undefined || properties === null) return [];
  const strict: Strict = [];
  for (const [name, property] of Object.entries(properties)) {
    if (property?.type === 'integer') strict.push([name, INTEGER_TEXT]);
    else if (property?.type === 'number') strict.push([name, NUMBER_TEXT]);
  }
  return strict;
}

/** The storable-text problems of a request part, as schema issues (mapped like the others). */
function unstorableTextIssues(value: unknown): SchemaIssue[] {
  return validateStorableText(value).map(({ field, message }) => ({
    keyword: STORABLE_TEXT_KEYWORD,
    instancePath: '',
    params: { field },
    message,
  }));
}

const TEXT_CHECKED_PARTS = new Set(['body', 'querystring', 'params']);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  compileValidator(schema, httpPart, { checkText: TEXT_CHECKED_PARTS.has(httpPart ?? '') });

/**
 * The validator of routes whose body holds posts checked one by one (so that one bad post is
 * that post's problem, not the request's): the body is checked against `envelope`, the rest of
 * the schema as documented. The route checks each post itself, storable text included.
 */
export const withBodyEnvelope =
  (envelope: TSchema): FastifySchemaCompiler<unknown> =>
  (route) =>
    route.httpPart === 'body'
      ? compileValidator(envelope, 'body', { checkText: false })
      : validatorCompiler(route);

function compileValidator(
  schema: unknown,
  httpPart: string | undefined,
  options: { checkText: boolean },
) {
  const check = Compile(schema as Parameters<typeof Compile>[0]);
  const strict = httpPart === 'body' ? [] : strictNumericProperties(schema);
  return (value: unknown) => {
    let converted = value;
    if (httpPart !== 'body') {
      // Texts that are not plain numerals stay texts, so the check refuses them.
      const kept: Array<[string, unknown]> = [];
      if (strict.length > 0 && value !== null && typeof value === 'object') {
        const raw = value as Record<string, unknown>;
        for (const [name, pattern] of strict) {
          const text = raw[name];
          if (typeof text === 'string' && !pattern.test(text)) kept.push([name, text]);
        }
      }
      converted = Value.Convert(schema as Parameters<typeof Value.Convert>[0], value);
      if (kept.length > 0) {
        converted = { ...(converted as Record<string, unknown>), ...Object.fromEntries(kept) };
      }
    }
    const textIssues = options.checkText ? unstorableTextIssues(value) : [];
    const valid = check.Check(converted);
    if (valid && textIssues.length === 0) return { value: converted };
    const issues = valid ? [] : (check.Errors(converted) as SchemaIssue[]);
    return { error: [...issues, ...textIssues] as never };
  };
}
