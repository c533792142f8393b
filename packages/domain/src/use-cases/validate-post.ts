import type { CoreDeps } from '../deps.ts';
import type { Problem } from '../errors.ts';
import type { AccountContext } from '../model.ts';
import type { MediaProbe } from '../ports/index.ts';
import { classifyMedia } from '../rules/media.ts';
import type { CreatePostInput, PostMode } from '../rules/post-rules.ts';
import { preparePost } from './posts.ts';

export interface PostValidation {
  valid: boolean;
  problems: Problem[];
}

/** Media probed at once per post: a spreadsheet row has a few, a bulk request many posts. */
const PROBES_AT_ONCE = 4;

/**
 * A dry run of create: every check it runs, plus each media URL asked whether it answers and
 * is what its name says (an image for a .jpg...). Creates nothing.
 */
export async function validatePost(
  deps: CoreDeps,
  ctx: AccountContext,
  input: CreatePostInput,
  mode: PostMode,
  signal?: AbortSignal,
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
  if (deps.mediaProbe && Array.isArray(input.media_urls)) {
    const urls = input.media_urls
      .map((url, index) => ({ url, field: `media_urls[${index}]` }))
      // A URL the shared rules already refused is not fetched.
      .filter(
        ({ url, field }) => typeof url === 'string' && !problems.some((p) => p.field === field),
      );
    problems.push(
      ...(await probeAll(deps.mediaProbe, urls as Array<{ url: string; field: string }>, signal)),
    );
  }
  return { valid: problems.length === 0, problems };
}

async function probeAll(
  probe: MediaProbe,
  urls: Array<{ url: string; field: string }>,
  signal?: AbortSignal,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (let start = 0; start < urls.length; start += PROBES_AT_ONCE) {
    const batch = urls.slice(start, start + PROBES_AT_ONCE);
    const found = await Promise.all(
      batch.map(async ({ url, field }) => mediaProblem(await probe.probe(url, signal), url, field)),
    );
    for (const problem of found) if (problem) problems.push(problem);
  }
  return problems;
}

function mediaProblem(
  result: Awaited<ReturnType<MediaProbe['probe']>>,
  url: string,
  field: string,
): Problem | null {
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
