import type { Problem } from '@social-publisher/domain';

/** One schema validation issue, as TypeBox (and Ajv) report it. */
export interface SchemaIssue {
  keyword?: string;
  instancePath?: string;
  schemaPath?: string;
  params?: Record<string, unknown>;
  message?: string;
}

/** Our own issue keyword: text the database cannot store, its field already in `params.field`. */
export const STORABLE_TEXT_KEYWORD = 'storableText';

/** At most this many problems are listed; a huge invalid array must not yield a huge reply. */
export const MAX_DETAILS = 50;

/** JSON pointer `/media_urls/0/x` -> `media_urls[0].x` (the domain's field path style). */
export function fieldPath(pointer: string, context?: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = '';
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) path += `[${segment}]`;
    else path += path === '' ? segment : `.${segment}`;
  }
  if (path !== '') return path;
  return context === undefined || context === 'body' ? 'body' : context;
}

const joinPath = (base: string, property: string, context?: string): string =>
  base === 'body' || base === context ? property : `${base}.${property}`;

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

const FORMAT_NAMES: Record<string, string> = {
  uuid: 'a UUID',
  'date-time': 'an ISO 8601 date-time with a timezone, e.g. 2030-01-31T09:30:00Z',
  uri: 'an absolute URL',
  url: 'an absolute URL',
  email: 'an email address',
};

const list = (values: unknown): string =>
  Array.isArray(values) ? values.map((value) => String(value)).join(', ') : String(values);

const numberParam = (issue: SchemaIssue, name: string): number | undefined => {
  const value = issue.params?.[name];
  return typeof value === 'number' ? value : undefined;
};

/** A readable sentence for one issue (the field is reported beside it). */
function messageOf(issue: SchemaIssue): string | null {
  const limit = numberParam(issue, 'limit');
  switch (issue.keyword) {
    case 'type': {
      const type = issue.params?.type;
      const names = (Array.isArray(type) ? type : [type]).map((t) => TYPE_NAMES[String(t)] ?? t);
      return `must be ${names.join(' or ')}`;
    }
    case 'maxLength':
      return `must be at most ${limit} characters`;
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters`;
    case 'maxItems':
      return `must hold at most ${limit} items`;
    case 'minItems':
      return limit === 1 ? 'must hold at least one item' : `must hold at least ${limit} items`;
    case 'minimum':
      return `must be at least ${limit}`;
    case 'maximum':
      return `must be at most ${limit}`;
    case 'enum':
      return `must be one of ${list(issue.params?.allowedValues)}`;
    case 'format': {
      const format = String(issue.params?.format);
      return `must be ${FORMAT_NAMES[format] ?? `a valid ${format}`}`;
    }
    case 'pattern':
      return 'has an invalid format';
    case 'anyOf':
    case 'oneOf':
      return 'has an invalid value';
    default:
      return issue.message ?? 'is invalid';
  }
}

/** The property an issue is about: a missing one by name, else the last segment of its path. */
function propertiesOf(issue: SchemaIssue): string[] {
  if (issue.keyword === 'required') {
    const missing = issue.params?.requiredProperties ?? issue.params?.missingProperty;
    return (Array.isArray(missing) ? missing : [missing]).map(String);
  }
  const last = (issue.instancePath ?? '').split('/').at(-1);
  return last ? [last.replace(/~1/g, '/').replace(/~0/g, '~')] : [];
}

/**
 * Rules over several fields read as one problem, not as the failed branches one by one:
 * `anyOf` of alternatives (`social_account_ids` or `platforms`) becomes "at least one of",
 * and a failed `if`/`else` leaves only what its branch requires. A union of value types
 * (`string | null`) is left as it is.
 */
function withCompoundRules(issues: readonly SchemaIssue[]): SchemaIssue[] {
  const out: SchemaIssue[] = [];
  const consumed = new Set<SchemaIssue>();
  for (const issue of issues) {
    if (issue.keyword !== 'anyOf') continue;
    const at = issue.instancePath ?? '';
    const prefix = `${issue.schemaPath ?? '#'}/anyOf/`;
    const branches = issues.filter((other) => other.schemaPath?.startsWith(prefix));
    const alternatives = branches.every(
      (other) => other.keyword === 'required' || (other.instancePath ?? '').length > at.length,
    );
    if (branches.length === 0 || !alternatives) continue;
    for (const branch of branches) consumed.add(branch);
    consumed.add(issue);
    const names = [...new Set(branches.flatMap(propertiesOf))];
    out.push({
      keyword: 'alternatives',
      instancePath: `${at}/${names[0] ?? ''}`,
      message: `at least one of ${names.join(' or ')} is required (and not empty)`,
    });
  }
  for (const issue of issues) {
    if (consumed.has(issue) || issue.keyword === 'if') continue;
    out.push(issue);
  }
  return out;
}

/** Fastify/TypeBox schema issues -> `details` of a `validation_failed` reply, one per field. */
export function problemsFromSchemaIssues(
  rawIssues: readonly SchemaIssue[],
  context?: string,
): Problem[] {
  const issues = withCompoundRules(rawIssues);
  const byField = new Map<string, { messages: string[]; constants: string[] }>();
  const add = (field: string, message: string | null, constant?: unknown) => {
    let entry = byField.get(field);
    if (!entry) {
      entry = { messages: [], constants: [] };
      byField.set(field, entry);
    }
    if (constant !== undefined) entry.constants.push(String(constant));
    else if (message !== null) entry.messages.push(message);
  };
  for (const issue of issues) {
    const at = fieldPath(issue.instancePath ?? '', context);
    const params = issue.params ?? {};
    if (issue.keyword === STORABLE_TEXT_KEYWORD) {
      const field = String(params.field ?? '');
      add(field === '' ? at : field, issue.message ?? 'is invalid');
    } else if (issue.keyword === 'required') {
      const missing = params.requiredProperties ?? params.missingProperty;
      for (const name of Array.isArray(missing) ? missing : [missing]) {
        add(joinPath(at, String(name), context), 'is required');
      }
    } else if (issue.keyword === 'additionalProperties') {
      const extra = params.additionalProperties ?? params.additionalProperty;
      for (const name of Array.isArray(extra) ? extra : [extra]) {
        add(joinPath(at, String(name), context), 'is not a known field');
      }
    } else if (issue.keyword === 'boolean' && issue.schemaPath?.endsWith('additionalProperties')) {
      add(at, 'is not a known field');
    } else if (issue.keyword === 'const') {
      add(at, null, params.allowedValue);
    } else {
      add(at, messageOf(issue));
    }
  }
  const problems: Problem[] = [];
  for (const [field, { messages, constants }] of byField) {
    // A union of constants reads best as "must be one of ..."; else the first specific message.
    const specific = messages.filter((message) => message !== 'has an invalid value');
    const message =
      constants.length > 0 && specific.every((m) => m.startsWith('must be a'))
        ? `must be one of ${[...new Set(constants)].join(', ')}`
        : (specific[0] ?? messages[0] ?? 'is invalid');
    problems.push({ field, message });
    if (problems.length >= MAX_DETAILS) break;
  }
  return problems;
}
