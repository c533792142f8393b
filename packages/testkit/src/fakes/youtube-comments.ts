// The comments half of the fake YouTube Data API: comments by others (`addComment`, what a test
// makes others write, on a video or as a reply to a top-level comment), commentThreads.list
// (`?part=snippet,replies&videoId=`: threads newest first with their replies, `nextPageToken`),
// comments.list (`?parentId=`: a thread's replies), comments.insert (`part=snippet`, a reply with
// `snippet.parentId`, to a top-level comment only), comments.setModerationStatus (`?id=&
// moderationStatus=heldForReview|published|rejected`, 204). A video it does not hold is 404
// videoNotFound, a comment 404 commentNotFound.
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';

/** A comment: a thread's top-level comment (its id is the thread's) or a reply. */
export interface YoutubeComment {
  id: string;
  videoId: string;
  textOriginal: string;
  /** The top-level comment it answers (a reply). */
  parentId?: string;
  /** Who wrote it (absent: the channel itself). */
  author?: { channelId: string; displayName: string };
  publishedAt?: string;
  moderationStatus?: 'published' | 'heldForReview' | 'rejected';
}

interface Refusal {
  status: number;
  reason: string;
  domain: string;
  message: string;
}

const FAN = { channelId: 'UCfan0000000000000000099', displayName: 'A Fan' };
const PAGE = 20;

export function createYoutubeComments(
  comments: YoutubeComment[],
  channel: () => { id: string; title: string } | null,
  videoExists: (id: string) => boolean,
  refuse: (response: ServerResponse, error: Refusal) => void,
) {
  let counter = 0;
  const find = (id: string) => comments.find((comment) => comment.id === id);
  const notFound = (response: ServerResponse, what: 'video' | 'comment') =>
    refuse(response, {
      status: 404,
      reason: what === 'video' ? 'videoNotFound' : 'commentNotFound',
      domain: what === 'video' ? 'youtube.commentThread' : 'youtube.comment',
      message: `The ${what} identified by the request could not be found.`,
    });

  function addComment(objectId: string, text: string): YoutubeComment {
    const parent = find(objectId);
    counter += 1;
    const made: YoutubeComment = {
      id: parent ? `${parent.id}.fakeReply${counter}` : `UgzFan${counter}fakeThread`,
      videoId: parent?.videoId ?? objectId,
      textOriginal: text,
      author: FAN,
      publishedAt: new Date().toISOString(),
      ...(parent ? { parentId: parent.id } : {}),
    };
    comments.push(made);
    return made;
  }

  const resource = (comment: YoutubeComment) => {
    const own = channel();
    const author = comment.author ?? {
      channelId: own?.id ?? '',
      displayName: own?.title ?? 'Fake Channel',
    };
    return {
      kind: 'youtube#comment',
      id: comment.id,
      snippet: {
        videoId: comment.videoId,
        textDisplay: comment.textOriginal,
        textOriginal: comment.textOriginal,
        authorDisplayName: author.displayName,
        authorChannelId: { value: author.channelId },
        publishedAt: comment.publishedAt ?? new Date().toISOString(),
        moderationStatus: comment.moderationStatus ?? 'published',
        ...(comment.parentId ? { parentId: comment.parentId } : {}),
      },
    };
  };

  function threads(response: ServerResponse, query: URLSearchParams) {
    const videoId = query.get('videoId') ?? '';
    if (!videoExists(videoId)) return notFound(response, 'video');
    const top = comments.filter((c) => c.videoId === videoId && !c.parentId).reverse();
    const start = Number(query.get('pageToken') ?? 0) || 0;
    const items = top.slice(start, start + PAGE).map((thread) => {
      const replies = comments.filter((c) => c.parentId === thread.id);
      return {
        kind: 'youtube#commentThread',
        id: thread.id,
        snippet: { videoId, topLevelComment: resource(thread), totalReplyCount: replies.length },
        ...(replies.length > 0 ? { replies: { comments: replies.map(resource) } } : {}),
      };
    });
    const next = start + PAGE < top.length ? { nextPageToken: String(start + PAGE) } : {};
    sendJson(response, 200, { kind: 'youtube#commentThreadListResponse', items, ...next });
  }

  function insert(response: ServerResponse, body: unknown) {
    const snippet = (body as { snippet?: { parentId?: unknown; textOriginal?: unknown } } | null)
      ?.snippet;
    const parent = typeof snippet?.parentId === 'string' ? find(snippet.parentId) : undefined;
    if (!parent || parent.parentId) return notFound(response, 'comment');
    if (typeof snippet?.textOriginal !== 'string' || snippet.textOriginal === '') {
      return refuse(response, {
        status: 400,
        reason: 'commentTextRequired',
        domain: 'youtube.comment',
        message: 'The comment must contain text.',
      });
    }
    counter += 1;
    const made: YoutubeComment = {
      id: `${parent.id}.ownReply${counter}`,
      videoId: parent.videoId,
      textOriginal: snippet.textOriginal,
      parentId: parent.id,
      publishedAt: new Date().toISOString(),
    };
    comments.push(made);
    sendJson(response, 200, resource(made));
  }

  /** Serves a comments route; false when the request is not one. */
  function handle(
    response: ServerResponse,
    method: string,
    path: string,
    query: URLSearchParams,
    body: unknown,
  ): boolean {
    if (path === '/youtube/v3/commentThreads' && method === 'GET') {
      threads(response, query);
      return true;
    }
    if (path === '/youtube/v3/comments' && method === 'GET') {
      const parent = find(query.get('parentId') ?? '');
      if (!parent) notFound(response, 'comment');
      else {
        const items = comments.filter((c) => c.parentId === parent.id).map(resource);
        sendJson(response, 200, { kind: 'youtube#commentListResponse', items });
      }
      return true;
    }
    if (path === '/youtube/v3/comments' && method === 'POST') {
      insert(response, body);
      return true;
    }
    if (path === '/youtube/v3/comments/setModerationStatus' && method === 'POST') {
      const comment = find(query.get('id') ?? '');
      const status = query.get('moderationStatus');
      if (!comment) notFound(response, 'comment');
      else if (status !== 'published' && status !== 'heldForReview' && status !== 'rejected') {
        refuse(response, {
          status: 400,
          reason: 'invalidModerationStatus',
          domain: 'youtube.comment',
          message: 'The moderation status is not valid.',
        });
      } else {
        comment.moderationStatus = status;
        response.writeHead(204).end();
      }
      return true;
    }
    return false;
  }

  return { addComment, handle };
}
