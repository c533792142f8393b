// The comments under published LinkedIn posts (docs/platforms.md#linkedin; learn.microsoft.com
// "Comments API"), Rest.li 2.0 with the API version on every call:
// - read: GET /rest/socialActions/{post urn}/comments (its top-level comments, `created.time`,
//   `actor`, `message.text`), then the same edge of each top-level comment for its replies
//   (LinkedIn nests one level), skipped for a comment whose `commentsSummary` counts none;
//   LinkedIn grants it for a member's posts only with r_member_social (approved apps) and for
//   an organization's with r_organization_social: a 403 leaves the target `unsupported`,
//   saying which;
// - reply: POST /rest/socialActions/{comment urn}/comments `{ actor, object, message,
//   parentComment }` as the connection's author; an earlier reply is looked for in the same
//   edge (the author's, that text, since the attempt);
// - delete: DELETE /rest/socialActions/{post urn}/comments/{id}?actor=, the author's own
//   comments (as unpublish deletes the first comment). LinkedIn has no hide.
import type {
  PlatformComment,
  PlatformCommentsClient,
  PublishConnection,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import {
  CommentGone,
  CommentsUnsupported,
  commentsClient,
  ownReplyAmong,
  sentReply,
} from '../shared/comment-calls.ts';
import { asString, type HttpResult, header, isRecord } from '../shared/http.ts';
import { linkedinFailure } from './failure.ts';
import { commentPath } from './remove.ts';
import { authorOf, LABEL } from './run.ts';
import type { LinkedinSettings } from './settings.ts';

/** LinkedIn's comment length. */
const COMMENT_MAX_LENGTH = 1_250;

/** A comments edge's element as a comment; `parent`: the comment whose edge it came from. */
function commentOf(
  element: unknown,
  ownAuthor: string,
  parent: string | null,
): PlatformComment | null {
  if (!isRecord(element)) return null;
  const urn = asString(element.$URN) ?? asString(element.id);
  const actor = asString(element.actor);
  const created = isRecord(element.created) ? Number(element.created.time) : Number.NaN;
  if (!urn || !actor || !Number.isFinite(created)) return null;
  const message = isRecord(element.message) ? element.message : {};
  return {
    platformCommentId: urn,
    parentPlatformId: asString(element.parentComment) ?? parent,
    author: { id: actor, name: null, handle: null },
    text: asString(message.text) ?? '',
    createdAt: new Date(created),
    hidden: false,
    mine: actor === ownAuthor,
  };
}

/** Whether a top-level comment may have replies: unless its `commentsSummary` counts none. */
function mayHaveReplies(element: unknown): boolean {
  const summary =
    isRecord(element) && isRecord(element.commentsSummary) ? element.commentsSummary : {};
  const counts = [summary.totalFirstLevelComments, summary.aggregatedTotalComments]
    .filter((count) => count !== undefined)
    .map(Number);
  return counts.length === 0 || counts.some((count) => count !== 0);
}

export function createLinkedinCommentsClient(
  config: LinkedinSettings,
  runtime: PublisherRuntime,
): PlatformCommentsClient {
  const rest = (connection: PublishConnection, signal: AbortSignal, method?: string) => {
    const author = authorOf(connection.externalId);
    return bearerClient(runtime, signal, {
      baseUrl: config.apiBaseUrl,
      label: LABEL,
      headers: {
        'linkedin-version': config.apiVersion,
        'x-restli-protocol-version': '2.0.0',
        ...(method ? { 'x-restli-method': method } : {}),
      },
      failure: (response: HttpResult, what: string) => {
        if (response.status === 404) return new CommentGone(`${what}: HTTP 404`);
        if (response.status === 403 && what.endsWith('comments read')) {
          const needed = author.startsWith('urn:li:person:')
            ? 'r_member_social'
            : 'r_organization_social';
          return new CommentsUnsupported(
            `LinkedIn lets this connection read comments only with ${needed} (granted to approved apps): ${response.text.slice(0, 300)}`,
          );
        }
        return linkedinFailure(response, what, author);
      },
    });
  };
  const commentsPath = (urn: string) => `/rest/socialActions/${encodeURIComponent(urn)}/comments`;

  /** The elements of one comments edge (a post's top-level comments, a comment's replies). */
  async function elementsOf(connection: PublishConnection, urn: string, signal: AbortSignal) {
    const answer = await rest(connection, signal)(
      'GET',
      `${commentsPath(urn)}?start=0&count=100`,
      connection.accessToken,
      'comments read',
    );
    const body = isRecord(answer.json) ? answer.json : {};
    return Array.isArray(body.elements) ? body.elements : [];
  }

  /** The comments of one edge, as comments under `parent` (null: the post's). */
  async function read(
    connection: PublishConnection,
    urn: string,
    parent: string | null,
    signal: AbortSignal,
  ) {
    const author = authorOf(connection.externalId);
    return (await elementsOf(connection, urn, signal)).flatMap(
      (element) => commentOf(element, author, parent) ?? [],
    );
  }

  /**
   * A post's top-level comments, each followed by its replies, up to `limit`. A comment deleted
   * between the two reads has no replies to give: only the post's own 404 is the post gone.
   */
  async function readThread(
    connection: PublishConnection,
    postUrn: string,
    limit: number,
    signal: AbortSignal,
  ) {
    const author = authorOf(connection.externalId);
    const found: PlatformComment[] = [];
    for (const element of await elementsOf(connection, postUrn, signal)) {
      if (found.length >= limit) break;
      const comment = commentOf(element, author, null);
      if (!comment) continue;
      found.push(comment);
      if (!mayHaveReplies(element)) continue;
      try {
        found.push(
          ...(await read(connection, comment.platformCommentId, comment.platformCommentId, signal)),
        );
      } catch (error) {
        if (!(error instanceof CommentGone)) throw error;
      }
    }
    return found.slice(0, limit);
  }

  return commentsClient({
    replyMaxLength: () => COMMENT_MAX_LENGTH,
    can: (comment) => ({ reply: true, hide: false, delete: comment.mine }),
    cannot: (action) =>
      action === 'hide'
        ? 'LinkedIn has no way to hide a comment'
        : 'LinkedIn deletes only your own comments',
    list: ({ connection, platformPostId, limit, signal }) =>
      readThread(connection, platformPostId, limit, signal),
    async reply({ connection, platformPostId, platformCommentId, text, signal }) {
      const actor = authorOf(connection.externalId);
      const object =
        /^urn:li:comment:\((urn:li:[a-zA-Z]+:[^,]+),/.exec(platformCommentId)?.[1] ??
        platformPostId;
      const response = await rest(connection, signal)(
        'POST',
        commentsPath(platformCommentId),
        connection.accessToken,
        'reply',
        {
          json: { actor, object, message: { text }, parentComment: platformCommentId },
        },
      );
      const json = isRecord(response.json) ? response.json : {};
      const urn = asString(json.$URN) ?? header(response.headers, 'x-restli-id');
      return sentReply('LinkedIn', urn, platformCommentId, actor, text);
    },
    async findReply({ connection, platformCommentId, text, since, signal }) {
      const replies = await read(connection, platformCommentId, platformCommentId, signal);
      return ownReplyAmong(replies, text, since);
    },
    delete: ({ connection, platformPostId, platformCommentId, signal }) => {
      const actor = encodeURIComponent(authorOf(connection.externalId));
      const path = `${commentPath(platformCommentId, platformPostId)}?actor=${actor}`;
      const call = rest(connection, signal, 'DELETE');
      return call('DELETE', path, connection.accessToken, 'comment delete');
    },
  });
}
