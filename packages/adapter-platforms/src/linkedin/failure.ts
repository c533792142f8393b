// How LinkedIn refuses a call: `{ status, serviceErrorCode, code?, message }`, read the same way
// for every call (publishing, comments, metrics, removal); a duplicate post names the post it
// repeats.
import { asString, excerpt, type HttpResult, isRecord } from '../shared/http.ts';
import { fail, TokenRejected } from '../shared/outcome.ts';
import { retryAtFrom, throttled } from '../shared/rate-limit.ts';

/**
 * LinkedIn's limits are per day (member and application); without a Retry-After, look again in
 * an hour (one refused call each time).
 */
export const LINKEDIN_THROTTLE_WAIT_MS = 60 * 60_000;

/** "Content is a duplicate of urn:li:share:123" -> that URN. */
export function duplicateOf(message: string): string | undefined {
  return /duplicate of (urn:li:[a-zA-Z]+:[\w-]+)/i.exec(message)?.[1];
}

/**
 * `{ status, serviceErrorCode, code?, message }` (the whole body kept in the message): 401 is a
 * rejected token, 429 a wait, a duplicate `duplicate_content`, 5xx retryable, other 4xx final.
 */
export function linkedinFailure(response: HttpResult, what: string, author?: string): Error {
  const body = isRecord(response.json) ? response.json : undefined;
  const message = (body && asString(body.message)) || excerpt(response.text) || '';
  const detail = `${what}: HTTP ${response.status}${
    response.text ? `: ${response.text.replace(/\s+/g, ' ').trim().slice(0, 1000)}` : ''
  }`;
  const code = (body && asString(body.code)) || `linkedin_${response.status}`;
  if (response.status === 401) return new TokenRejected(code, detail);
  if (response.status === 429) {
    return throttled(code, detail, retryAtFrom(response.headers, LINKEDIN_THROTTLE_WAIT_MS));
  }
  if (isDuplicate(response.status, message, body)) return fail('duplicate_content', detail, false);
  if (response.status === 403) {
    return fail(code, `${detail} (${permissionHint(author)})`, false);
  }
  if (response.status === 426) {
    return fail(code, `${detail} (set LINKEDIN_API_VERSION to an active YYYYMM version)`, false);
  }
  return fail(code, detail, response.status >= 500);
}

function isDuplicate(
  status: number,
  message: string,
  body: Record<string, unknown> | undefined,
): boolean {
  if (status !== 422 && status !== 409) return false;
  if (/duplicate/i.test(message)) return true;
  const details = body && isRecord(body.errorDetails) ? body.errorDetails : undefined;
  const inputs = details && Array.isArray(details.inputErrors) ? details.inputErrors : [];
  return inputs.some((item) => isRecord(item) && item.code === 'DUPLICATE_POST');
}

function permissionHint(author: string | undefined): string {
  if (author?.startsWith('urn:li:organization:')) {
    return `posting as ${author} needs the w_organization_social permission and the member must be an administrator (or content administrator) of that organization`;
  }
  return `posting as ${author ?? 'the member'} needs the w_member_social permission (Share on LinkedIn product)`;
}
