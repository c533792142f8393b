// The comments under published Mastodon statuses (docs/platforms.md#mastodon;
// docs.joinmastodon.org "statuses/:id/context", "statuses POST", "statuses/:id DELETE"):
// - read: GET /api/v1/statuses/:id/context, whose `descendants` are every reply under the
//   status, in thread order, each with its author (`account`) and `in_reply_to_id`;
// - reply: POST /api/v1/statuses with `in_reply_to_id` and an Idempotency-Key (the instance
//   answers a repeat of the key, within an hour, with the status it made the first time);
// - a reply an earlier attempt may have posted is looked for in the same descendants: ours,
//   answering that comment, with that text, written since the attempt;
// - delete: DELETE /api/v1/statuses/:id, the account's own statuses only. Mastodon has no way
//   to hide a reply to one's status. A 404 is a status deleted meanwhile.
import type {
  PlatformComment,
  PlatformCommentsClient,
  PublishConnection,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import { CommentGone, commentsClient, ownReplyAmong, sentReply } from '../shared/comment-calls.ts';
import { asString, type HttpResult, isRecord } from '../shared/http.ts';
import { mastodonFailure } from './api.ts';
import { instanceOf, instanceRuntime, maxCharactersOf } from './instance.ts';
import type { MastodonSettings } from './settings.ts';

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&apos;': "'",
};

/** A status's HTML `content` as plain text: paragraphs and line breaks kept, tags dropped. */
export function plainText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|apos);/g, (entity) => ENTITIES[entity] ?? entity)
    .trim();
}

/** One status of a context as a comment under `postId`, or null when it is not one. */
function commentOf(status: unknown, postId: string, ownId: string): PlatformComment | null {
  if (!isRecord(status)) return null;
  const id = asString(status.id);
  const account = isRecord(status.account) ? status.account : {};
  const authorId = asString(account.id);
  const created = Date.parse(asString(status.created_at) ?? '');
  if (!id || !authorId || !Number.isFinite(created)) return null;
  const parent = asString(status.in_reply_to_id) ?? null;
  return {
    platformCommentId: id,
    parentPlatformId: parent === postId ? null : parent,
    author: {
      id: authorId,
      name: asString(account.display_name) || null,
      handle: asString(account.acct) ?? null,
    },
    text: plainText(asString(status.content) ?? ''),
    createdAt: new Date(created),
    hidden: false,
    mine: authorId === ownId,
  };
}

/**
 * The connection's account id on its instance: connections made here are `<id>@<instance
 * host>` (one account id per instance), a brought token may be the bare id.
 */
const accountIdOf = (connection: PublishConnection): string =>
  connection.externalId.split('@')[0] ?? connection.externalId;

export function createMastodonCommentsClient(
  _settings: MastodonSettings,
  baseRuntime: PublisherRuntime,
): PlatformCommentsClient {
  // The instance is the user's choice: every call goes through the SSRF guard.
  const runtime = instanceRuntime(baseRuntime);
  const api = (connection: PublishConnection, signal: AbortSignal) =>
    bearerClient(runtime, signal, {
      baseUrl: instanceOf(connection.platformData),
      label: 'Mastodon',
      headers: { accept: 'application/json' },
      failure: (response: HttpResult, what: string) =>
        response.status === 404
          ? new CommentGone(`${what}: Record not found`)
          : mastodonFailure(response, what),
    });
  const statusPath = (id: string) => `/api/v1/statuses/${encodeURIComponent(id)}`;

  /** Every reply under the post, as comments (at most `limit`). */
  async function descendants(
    connection: PublishConnection,
    postId: string,
    signal: AbortSignal,
  ): Promise<PlatformComment[]> {
    const call = api(connection, signal);
    const answer = await call(
      'GET',
      `${statusPath(postId)}/context`,
      connection.accessToken,
      'status context',
    );
    const body = isRecord(answer.json) ? answer.json : {};
    const list = Array.isArray(body.descendants) ? body.descendants : [];
    return list.flatMap((status) => commentOf(status, postId, accountIdOf(connection)) ?? []);
  }

  return commentsClient({
    replyMaxLength: maxCharactersOf,
    can: (comment) => ({ reply: true, hide: false, delete: comment.mine }),
    cannot: (action) =>
      action === 'hide'
        ? 'Mastodon has no way to hide a reply to your status'
        : 'Mastodon deletes only your own statuses',
    list: async ({ connection, platformPostId, limit, signal }) =>
      (await descendants(connection, platformPostId, signal)).slice(0, limit),
    async reply({ connection, platformCommentId, text, idempotencyKey, signal }) {
      const call = api(connection, signal);
      const answer = await call('POST', '/api/v1/statuses', connection.accessToken, 'reply', {
        json: { status: text, in_reply_to_id: platformCommentId },
        headers: { 'idempotency-key': idempotencyKey },
      });
      const posted = commentOf(answer.json, '', accountIdOf(connection));
      if (posted) return { ...posted, mine: true };
      // The answer lacks a field we read: the reply as sent (its id is required).
      const id = isRecord(answer.json) ? asString(answer.json.id) : undefined;
      return sentReply('Mastodon', id, platformCommentId, accountIdOf(connection), text);
    },
    async findReply({ connection, platformPostId, platformCommentId, text, since, signal }) {
      const parent = platformCommentId === platformPostId ? null : platformCommentId;
      const replies = (await descendants(connection, platformPostId, signal)).filter(
        (c) => c.parentPlatformId === parent,
      );
      return ownReplyAmong(replies, text.trim(), since);
    },
    delete: ({ connection, platformCommentId, signal }) =>
      api(connection, signal)(
        'DELETE',
        statusPath(platformCommentId),
        connection.accessToken,
        'status delete',
      ),
  });
}
