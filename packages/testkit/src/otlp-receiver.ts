/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 for tests: accepts `POST /v1/traces` in both of the
 * exporter's encodings (http/json and http/protobuf), keeps every body as received, and decodes
 * both into one flat list of spans. The protobuf decoder reads the wire format by hand (varints
 * and length-delimited fields) for the few OTLP messages a trace export holds.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  /** The encoding it arrived in. */
  format: 'json' | 'protobuf';
  /** The resource's attributes (service.name, ...). */
  resource: Record<string, unknown>;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
}

export interface OtlpExport {
  path: string;
  contentType: string;
  body: Buffer;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: OTEL_EXPORTER_OTLP_ENDPOINT. */
  baseUrl: string;
  /** Every request received, raw. */
  exports: OtlpExport[];
  /** Every span received, decoded, in arrival order. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: OtlpExport[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const contentType = String(request.headers['content-type'] ?? '');
      exports.push({ path: request.url ?? '', contentType, body: Buffer.concat(chunks) });
      const json = contentType.includes('json');
      response.writeHead(request.url === '/v1/traces' && request.method === 'POST' ? 200 : 404, {
        'content-type': json ? 'application/json' : 'application/x-protobuf',
      });
      // An empty ExportTraceServiceResponse: `{}`, or no bytes at all in protobuf.
      response.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    exports,
    spans: () =>
      exports
        .filter((item) => item.path === '/v1/traces')
        .flatMap((item) =>
          item.contentType.includes('json') ? decodeJson(item.body) : decodeProtobuf(item.body),
        ),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------- OTLP/JSON

interface JsonValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonValue[] };
}
type JsonAttributes = Array<{ key: string; value: JsonValue }> | undefined;

const jsonValue = (value: JsonValue): unknown =>
  value.stringValue ??
  value.boolValue ??
  (value.intValue === undefined ? undefined : Number(value.intValue)) ??
  value.doubleValue ??
  value.arrayValue?.values?.map(jsonValue);

const jsonAttributes = (list: JsonAttributes): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, jsonValue(value)]));

function decodeJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans?: Array<{
      resource?: { attributes?: JsonAttributes };
      scopeSpans?: Array<{
        spans?: Array<{
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes?: JsonAttributes;
        }>;
      }>;
    }>;
  };
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = jsonAttributes(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        format: 'json' as const,
        resource,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        attributes: jsonAttributes(span.attributes),
      })),
    );
  });
}

// ---------------------------------------------------------------- OTLP/protobuf

/** One field of a protobuf message: its number and its raw value (varint or bytes). */
interface Field {
  no: number;
  varint: bigint;
  bytes: Buffer;
}

function readVarint(buffer: Buffer, at: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  let index = at;
  for (;;) {
    const byte = buffer[index];
    if (byte === undefined) throw new Error('protobuf: truncated varint');
    index += 1;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, index];
    shift += 7n;
  }
}

function fieldsOf(buffer: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  while (at < buffer.length) {
    const [tag, next] = readVarint(buffer, at);
    at = next;
    const no = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    const empty = Buffer.alloc(0);
    if (wire === 0) {
      const [value, after] = readVarint(buffer, at);
      fields.push({ no, varint: value, bytes: empty });
      at = after;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      fields.push({ no, varint: 0n, bytes: buffer.subarray(at, at + size) });
      at += size;
    } else if (wire === 2) {
      const [length, after] = readVarint(buffer, at);
      fields.push({ no, varint: 0n, bytes: buffer.subarray(after, after + Number(length)) });
      at = after + Number(length);
    } else {
      throw new Error(`protobuf: unexpected wire type ${wire}`);
    }
  }
  return fields;
}

const all = (fields: Field[], no: number) => fields.filter((field) => field.no === no);
const one = (fields: Field[], no: number) => fields.find((field) => field.no === no);

/** AnyValue: 1 string, 2 bool, 3 int, 4 double, 5 array. */
function protoValue(buffer: Buffer): unknown {
  const [field] = fieldsOf(buffer);
  if (!field) return undefined;
  if (field.no === 1) return field.bytes.toString('utf8');
  if (field.no === 2) return field.varint !== 0n;
  if (field.no === 3) return Number(BigInt.asIntN(64, field.varint));
  if (field.no === 4) return field.bytes.readDoubleLE(0);
  if (field.no === 5) return all(fieldsOf(field.bytes), 1).map((item) => protoValue(item.bytes));
  return field.bytes.toString('utf8');
}

/** KeyValue list: 1 key, 2 value. */
function protoAttributes(fields: Field[]): Record<string, unknown> {
  return Object.fromEntries(
    fields.map((field) => {
      const pair = fieldsOf(field.bytes);
      const value = one(pair, 2);
      return [one(pair, 1)?.bytes.toString('utf8') ?? '', value ? protoValue(value.bytes) : ''];
    }),
  );
}

/**
 * ExportTraceServiceRequest: 1 ResourceSpans { 1 Resource { 1 attributes }, 2 ScopeSpans
 * { 2 Span { 1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind, 9 attributes } } }.
 */
function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  return all(fieldsOf(body), 1).flatMap((resourceSpans) => {
    const rs = fieldsOf(resourceSpans.bytes);
    const resourceField = one(rs, 1);
    const resource = resourceField ? protoAttributes(all(fieldsOf(resourceField.bytes), 1)) : {};
    return all(rs, 2).flatMap((scopeSpans) =>
      all(fieldsOf(scopeSpans.bytes), 2).map((spanField) => {
        const span = fieldsOf(spanField.bytes);
        const hex = (no: number) => one(span, no)?.bytes.toString('hex') ?? '';
        return {
          format: 'protobuf' as const,
          resource,
          traceId: hex(1),
          spanId: hex(2),
          parentSpanId: hex(4),
          name: one(span, 5)?.bytes.toString('utf8') ?? '',
          kind: Number(one(span, 6)?.varint ?? 0n),
          attributes: protoAttributes(all(span, 9)),
        };
      }),
    );
  });
}
