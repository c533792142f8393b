/**
 * Requests generated from the OpenAPI document, one arbitrary per operation: path and query
 * parameters, headers and the body drawn from the operation's own schemas (mostly valid,
 * sometimes broken), with the caller's credential most of the time.
 */
import fc from 'fast-check';
import {
  bodyFor,
  type GeneratorOptions,
  type HostileStrings,
  type Schema,
  valueFor,
  wildString,
} from './arbitraries.ts';
import type { DocumentedResponse } from './documented-response.ts';

interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Parameter[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  security?: unknown[];
  responses: Record<string, DocumentedResponse>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
}

export interface GeneratedRequest {
  operation: Operation;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      ...operation,
      parameters: operation.parameters ?? [],
      method: method.toUpperCase(),
      path,
    })),
  );
}

/** A lone surrogate cannot be percent-encoded: it goes as the bytes a WTF-8 writer would send. */
function encodeSegment(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return `${encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8'))}%ED%A0%80`;
  }
}

const clip = (text: string) =>
  text.length > 300 ? `${text.slice(0, 300)}...(${text.length})` : text;

const asText = (value: unknown): string =>
  typeof value === 'string' ? value : value === null ? '' : JSON.stringify(value);

/**
 * Any text, short enough for a URL: Node refuses a request line over its header size limit
 * (16 KiB) before any route sees it (431, checked on its own in real-socket.test.ts).
 */
const urlText = (options: GeneratorOptions & { urlHostile: HostileStrings }) =>
  wildString({ ...options, hostile: options.urlHostile }).filter(
    // `.` and `..` segments are resolved away by every URL parser before they are sent.
    (text) => text !== '' && text !== '.' && text !== '..' && text.length <= 1_000,
  );

/** A path segment longer than the router takes (maxParamLength 200). */
const overlongSegment = fc.string({ unit: 'grapheme-ascii', minLength: 201, maxLength: 400 });

/** A header value a client can send at all: visible ASCII, not blank at the ends. */
const headerText = fc
  .string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 })
  .filter((text) => text === text.trim() && text.length > 0);

/** A CSV file: a header row from the known columns (and others), rows of any text. */
function csvFor(options: GeneratorOptions): fc.Arbitrary<string> {
  const column = fc.constantFrom(
    'content',
    'social_account_ids',
    'platforms',
    'media_urls',
    'scheduled_at',
    'platform_options',
    'x',
  );
  const cell = fc.oneof(
    fc.constantFrom('twitter', 'tiktok', '', '{}', '{"twitter":{}}', '2030-01-01T00:00:00Z'),
    fc.constantFrom(...options.ids),
    wildString(options),
  );
  const quote = (text: string) => `"${text.replace(/"/g, '""')}"`;
  return fc.uniqueArray(column, { minLength: 1, maxLength: 4 }).chain((columns) =>
    fc
      .array(fc.array(cell, { minLength: columns.length, maxLength: columns.length }), {
        maxLength: 4,
      })
      .map((rows) =>
        [columns.join(','), ...rows.map((row) => row.map(quote).join(','))].join('\n'),
      ),
  );
}

export function requestFor(
  operation: Operation,
  options: GeneratorOptions & { authorization: string; urlHostile: HostileStrings },
): fc.Arbitrary<GeneratedRequest> {
  const pathParameters = operation.parameters.filter((p) => p.in === 'path');
  const queryParameters = operation.parameters.filter((p) => p.in === 'query');
  const idOrAnything = fc.oneof(
    { arbitrary: fc.constantFrom(...options.ids), weight: 4 },
    { arbitrary: fc.uuid(), weight: 1 },
    { arbitrary: urlText(options), weight: 1 },
    // Longer than the router's longest path parameter (200): answered before any route runs.
    { arbitrary: overlongSegment, weight: 1 },
  );
  const pathValues = fc.tuple(
    ...pathParameters.map((parameter) =>
      parameter.schema?.enum ? valueFor(parameter.schema, options).map(asText) : idOrAnything,
    ),
  );
  const queryValues = fc.tuple(
    ...queryParameters.map((parameter) =>
      fc.option(
        fc.oneof(
          { arbitrary: valueFor(parameter.schema ?? {}, options).map(asText), weight: 3 },
          { arbitrary: urlText(options), weight: 1 },
        ),
        { freq: parameter.required ? 10 : 2 },
      ),
    ),
  );
  const jsonSchema = operation.requestBody?.content['application/json']?.schema;
  const csv = operation.requestBody?.content['text/csv'];
  const body: fc.Arbitrary<{ type: string; text: string } | undefined> = jsonSchema
    ? bodyFor(jsonSchema, options).map((value) => ({
        type: 'application/json',
        text: JSON.stringify(value) ?? 'null',
      }))
    : csv
      ? csvFor(options).map((text) => ({ type: 'text/csv', text }))
      : fc.constant(undefined);
  const credential = fc.oneof(
    { arbitrary: fc.constant(options.authorization), weight: 12 },
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: headerText.map((text) => `Bearer ${text}`), weight: 1 },
  );
  const idempotencyKey = operation.parameters.some((p) => p.name === 'idempotency-key')
    ? fc.option(headerText, { freq: 3 })
    : fc.constant(null);

  return fc
    .record({ pathValues, queryValues, body, credential, idempotencyKey })
    .map(
      ({
        pathValues: ids,
        queryValues: values,
        body: payload,
        credential: auth,
        idempotencyKey: key,
      }) => {
        let url = operation.path;
        pathParameters.forEach((parameter, at) => {
          url = url.replace(`{${parameter.name}}`, encodeSegment(ids[at] ?? ''));
        });
        const query = queryParameters
          .map((parameter, at) => [parameter.name, values[at]] as const)
          .filter(([, value]) => value !== null && value !== undefined)
          .map(([name, value]) => `${encodeURIComponent(name)}=${encodeSegment(value ?? '')}`);
        if (query.length > 0) url += `?${query.join('&')}`;
        const headers: Record<string, string> = {};
        if (auth !== undefined) headers.authorization = auth;
        if (key !== null) headers['idempotency-key'] = key;
        if (payload) headers['content-type'] = payload.type;
        const request: GeneratedRequest = {
          operation,
          method: operation.method,
          url,
          headers,
          ...(payload ? { body: payload.text } : {}),
        };
        // What fast-check prints for a counterexample: the request, not the whole operation.
        return Object.assign(request, {
          [fc.toStringMethod]: () =>
            `${request.method} ${clip(url)} ${JSON.stringify(headers)} ${clip(request.body ?? '')}`,
        });
      },
    );
}
