/**
 * Is an answer one the OpenAPI document describes? Its status must be listed for the
 * operation, its media type listed for that status (or no body where none is documented), and
 * its body valid against the schema documented for that status and media type.
 */
import { Compile } from 'typebox/compile';

export interface DocumentedResponse {
  description?: string;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}

export interface Answer {
  status: number;
  contentType: string | null;
  body: string;
}

const validators = new WeakMap<object, ReturnType<typeof Compile>>();

function validatorOf(schema: Record<string, unknown>) {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema as Parameters<typeof Compile>[0]);
    validators.set(schema, validator);
  }
  return validator;
}

/** Why the answer is not what the document says (null: it is). */
export function undocumented(
  responses: Record<string, DocumentedResponse>,
  answer: Answer,
): string | null {
  const documented = responses[String(answer.status)] ?? responses.default;
  if (!documented) {
    return `status ${answer.status} is not documented (documented: ${Object.keys(responses).join(', ')})`;
  }
  if (!documented.content) {
    return answer.body === '' ? null : `status ${answer.status} documents no body, got one`;
  }
  const mediaType = (answer.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const media = documented.content[mediaType];
  if (!media) {
    return `status ${answer.status}: media type "${mediaType}" is not documented (documented: ${Object.keys(documented.content).join(', ')})`;
  }
  if (!media.schema) return null;
  let value: unknown = answer.body;
  if (mediaType.endsWith('json')) {
    try {
      value = JSON.parse(answer.body);
    } catch {
      return `status ${answer.status}: the body is not JSON`;
    }
  }
  const validator = validatorOf(media.schema);
  if (validator.Check(value)) return null;
  const problems = [...validator.Errors(value)]
    .slice(0, 5)
    .map((error) => `${error.instancePath || '/'} ${error.message}`);
  return `status ${answer.status}: the body does not match its schema: ${problems.join('; ')}`;
}
