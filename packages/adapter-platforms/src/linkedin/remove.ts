// Deleting a published LinkedIn post (docs/platforms.md#linkedin; learn.microsoft.com/linkedin
// "Posts API", "Comments API"): the first comment with DELETE
// /rest/socialActions/{post urn}/comments/{comment id}?actor={author}, then the post with DELETE
// /rest/posts/{url-encoded urn}, both with the versioned Rest.li headers the publisher sends.
// LinkedIn answers 204, also for a post deleted before (its deletes are idempotent); a 404 is a
// part that is not there. w_member_social / w_organization_social cover deleting what they posted.
import type { PlatformRemover } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import { PartGone, removeParts, type TargetPart } from '../shared/remove-parts.ts';
import { linkedinFailure } from './failure.ts';
import { authorOf, LABEL } from './run.ts';
import type { LinkedinSettings } from './settings.ts';

/**
 * `urn:li:comment:(urn:li:share:1,2)` -> the post commented on and the comment's id; a bare id
 * (not a comment URN) is taken as a comment on `postUrn`.
 */
export function commentPath(commentId: string, postUrn: string): string {
  const match = /^urn:li:comment:\((urn:li:[a-zA-Z]+:[^,]+),([^)]+)\)$/.exec(commentId);
  const object = match?.[1] ?? postUrn;
  const id = match?.[2] ?? commentId;
  return `/rest/socialActions/${encodeURIComponent(object)}/comments/${encodeURIComponent(id)}`;
}

export function createLinkedinRemover(
  config: LinkedinSettings,
  runtime: PublisherRuntime,
): PlatformRemover {
  return {
    remove: (request) => {
      const author = authorOf(request.connection.externalId);
      const rest = bearerClient(runtime, request.signal, {
        baseUrl: config.apiBaseUrl,
        label: LABEL,
        headers: {
          'linkedin-version': config.apiVersion,
          'x-restli-protocol-version': '2.0.0',
          'x-restli-method': 'DELETE',
        },
        failure: (response, what) =>
          response.status === 404
            ? new PartGone(`${what}: HTTP 404`)
            : linkedinFailure(response, what, author),
      });
      const pathOf = (part: TargetPart) =>
        part.kind === 'first_comment'
          ? `${commentPath(part.id, request.platformPostId)}?actor=${encodeURIComponent(author)}`
          : `/rest/posts/${encodeURIComponent(part.id)}`;
      const token = request.connection.accessToken;
      return removeParts(request, async (part) => {
        const what = part.kind === 'first_comment' ? 'comment delete' : 'post delete';
        await rest('DELETE', pathOf(part), token, what);
      });
    },
  };
}
