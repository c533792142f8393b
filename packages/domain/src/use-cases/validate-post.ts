import type { CoreDeps } from '../deps.ts';
import type { Problem } from '../errors.ts';
import type { AccountContext } from '../model.ts';
import type { MediaProbeResult } from '../ports/index.ts';
import { classifyMedia, MAX_MEDIA_URLS } from '../rules/media.ts';
import type { CreatePostInput, PostMode } from '../rules/post-rules.ts';
import { isHostedMediaUrl } from './hosted-media.ts';
import {
  createProbeSession,
  isSkipped,
  MAX_PROBES_PER_REQUEST,
  type ProbeSession,
} from './media-probes.ts';
import { preparePost } from './posts.ts';

export interface PostValidation {
  valid: boolean;
  problems: Problem[];
  /**
   * Media URLs that were not asked (the request's probe limit was reached): `valid` says
   * nothing about them. Absent when every URL was asked.
   */
  unchecked?: Problem[];
}

const NOT_PROBED = `not fetched: this request reached its limit of ${MAX_PROBES_PER_REQUEST} media URLs to check`;

export interface ValidateOptions {
  /** The client's signal: no probe starts once it has gone. */
  signal?: AbortSignal;
  /** The request's probes, shared by every post of a batch (default: one for this post). */
  probes?: ProbeSession;
}

/**
 * A dry run of create: every check it runs, plus each media URL asked whether it answers and
 * is what its name says (an image for a .jpg...). Creates nothing.
 */
export async function validatePost(
  deps: CoreDeps,
  ctx: AccountContext,
  input: CreatePostInput,
  mode: PostMode,
  options: ValidateOptions = {},
): Promise<PostValidation> {
  const prepared = await preparePost(deps, ctx, input, mode);
  const problems: Problem[] = [];
  if (!prepared.ok) {
    const { error } = prepared;
    problems.push(
      ...(error.code === 'validation_failed'
        ? error.details
        : [{ field: '', message: error.message }]),
    );
  }
  const probes =
    options.probes ??
    (deps.mediaProbe ? createProbeSession(deps.mediaProbe, { signal: options.signal }) : null);
  if (!probes || !Array.isArray(input.media_urls))
    return { valid: problems.length === 0, problems };
  const urls = (input.media_urls as unknown[])
    // No more than a post may hold: the rest are refused by the rules already.
    .slice(0, MAX_MEDIA_URLS)
    .map((url, index) => ({ url, field: `media_urls[${index}]` }))
    // A URL the shared rules already refused is not fetched, nor one of our own media (checked
    // against storage by preparePost: no SSRF refusal for what we host).
    .filter(
      (entry): entry is { url: string; field: string } =>
        typeof entry.url === 'string' &&
        !problems.some((p) => p.field === entry.field) &&
        !isHostedMediaUrl(deps, entry.url),
    );
  const unchecked: Problem[] = [];
  const answers = await Promise.all(urls.map(({ url }) => probes.probe(url)));
  answers.forEach((answer, at) => {
    const { url, field } = urls[at] as { url: string; field: string };
    if (isSkipped(answer)) {
      if (answer.skipped === 'limit') unchecked.push({ field, message: NOT_PROBED });
      return;
    }
    const problem = mediaProblem(answer, url, field);
    if (problem) problems.push(problem);
  });
  return {
    valid: problems.length === 0,
    problems,
    ...(unchecked.length > 0 ? { unchecked } : {}),
  };
}

function mediaProblem(result: MediaProbeResult, url: string, field: string): Problem | null {
  if (!result.ok) return { field, message: `cannot be fetched: ${result.reason}` };
  const type = result.contentType?.toLowerCase() ?? '';
  // Servers that do not say (or say octet-stream) get the benefit of the doubt.
  if (type === '' || type === 'application/octet-stream') return null;
  const kind = classifyMedia(url);
  if (kind === 'photo' && !type.startsWith('image/')) {
    return { field, message: `is named like an image but the server says ${type}` };
  }
  if (kind === 'video' && !type.startsWith('video/')) {
    return { field, message: `is named like a video but the server says ${type}` };
  }
  return null;
}
