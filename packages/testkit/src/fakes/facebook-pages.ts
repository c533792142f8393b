// The Page publishing half of the fake Graph API: /{page}/feed (text, link, attached_media),
// /{page}/photos (published, or unpublished for a multi-photo post), /{page}/videos (file_url,
// processed slowly), GET /{video-id}?fields=status, the Page's recent posts and videos,
// duplicate refusal (506) and a per-Page post limit answering code 32 with X-Page-Usage;
// POST /{object-id}/comments (message) on a post or video of the Page, or on a comment (a reply);
// GET lists them (with from, created_time, is_hidden, parent when asked); POST /{comment-id}
// is_hidden; comments by others (addComment); a post's
// or video's numbers (GET /{id}?fields=reactions.summary(total_count),...,shares); DELETE /{id}
// of a post, a video or a comment.
import type { ServerResponse } from 'node:http';
import { PostNumbers } from './post-numbers.ts';

export interface FacebookPost {
  id: string;
  pageId: string;
  message: string;
  link: string | null;
  /** Photo ids attached (multi-photo) or the one photo's id. */
  photoIds: string[];
  videoId: string | null;
  createdAt: Date;
}

/** A Graph API error as the fakes answer it. */
export interface FacebookError {
  code: number;
  subcode?: number;
  type?: string;
  message: string;
  isTransient?: boolean;
  /** HTTP status (Graph answers 400 for nearly everything, 500 for its own failures). */
  status?: number;
  /** Headers sent along, e.g. `x-app-usage` with `estimated_time_to_regain_access`. */
  headers?: Record<string, string>;
}

/** A comment made with POST /{object-id}/comments (by the Page), or by someone else. */
export interface FacebookComment {
  id: string;
  /** The post (`{page}_{post}`) or video commented on. */
  objectId: string;
  message: string;
  /** Who wrote it (absent: the Page itself). */
  from?: { id: string; name: string };
  /** The comment it answers (a reply to a comment), if any. */
  parentId?: string;
  createdAt?: Date;
  hidden?: boolean;
}

export interface FacebookPhoto {
  id: string;
  pageId: string;
  url: string;
  published: boolean;
}

export interface FacebookVideo {
  id: string;
  pageId: string;
  fileUrl: string;
  description: string;
  /** Status reads still answering `processing`. */
  pollsLeft: number;
  /** Set by failNextVideo: once processed, the status answers `error` with this message. */
  error: string | null;
  createdAt: Date;
}

export interface FacebookPagesOptions {
  /** `processing` answers of GET /{video}?fields=status before `ready` (default 1). */
  videoProcessingPolls?: number;
  /** Posts one Page may create per window; past it: code 32 with X-Page-Usage. */
  postLimit?: { limit: number; windowMs: number };
  /** How long the same message on the same Page is refused with 506 (default 24 h). */
  duplicateWindowMs?: number;
}

type Answer = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
) => void;
type Refuse = (
  response: ServerResponse,
  error: FacebookError,
  headers?: Record<string, string>,
) => void;

/** The numbers a post or video shows: reactions and comments (summaries), shares (posts only). */
export const FACEBOOK_ENGAGEMENT = ['reactions', 'comments', 'shares'] as const;
export type FacebookEngagement = (typeof FACEBOOK_ENGAGEMENT)[number];

/** `reactions.summary(total_count).limit(0)` -> { edge: reactions, summary: true }. */
function edgeField(field: string): { edge: string; summary: boolean } {
  const edge = field.split(/[.(]/)[0] ?? field;
  return { edge, summary: /\.summary\((true|total_count)\)/.test(field) };
}

export function createFacebookPages(options: FacebookPagesOptions, answer: Answer, refuse: Refuse) {
  const engagement = new PostNumbers(FACEBOOK_ENGAGEMENT);
  const posts: FacebookPost[] = [];
  const comments: FacebookComment[] = [];
  const photos = new Map<string, FacebookPhoto>();
  const videos = new Map<string, FacebookVideo>();
  const windows = new Map<string, { started: number; count: number }>();
  let sequence = 0;
  let nextVideoError: string | null = null;
  const nextId = () => String(900_000_000_000_000 + ++sequence);

  /** The Page's limit: true when it refused. */
  function limited(response: ServerResponse, pageId: string): boolean {
    const limit = options.postLimit;
    if (!limit) return false;
    const now = Date.now();
    let window = windows.get(pageId);
    if (!window || now - window.started >= limit.windowMs) {
      window = { started: now, count: 0 };
      windows.set(pageId, window);
    }
    if (window.count < limit.limit) {
      window.count += 1;
      return false;
    }
    const minutes = Math.max(1, Math.ceil((window.started + limit.windowMs - now) / 60_000));
    refuse(
      response,
      {
        code: 32,
        type: 'OAuthException',
        message: 'Page request limit reached',
        isTransient: true,
      },
      {
        'x-page-usage': JSON.stringify({
          call_count: 100,
          total_cputime: 10,
          total_time: 10,
          estimated_time_to_regain_access: minutes,
        }),
      },
    );
    return true;
  }

  function duplicate(pageId: string, message: string): boolean {
    const since = Date.now() - (options.duplicateWindowMs ?? 24 * 60 * 60_000);
    return (
      message !== '' &&
      posts.some(
        (post) =>
          post.pageId === pageId && post.message === message && post.createdAt.getTime() >= since,
      )
    );
  }

  const DUPLICATE: FacebookError = {
    code: 506,
    type: 'OAuthException',
    message: 'Duplicate status message',
  };

  function feed(response: ServerResponse, pageId: string, params: Record<string, string>) {
    const message = params.message ?? '';
    let attached: string[] = [];
    if (params.attached_media) {
      try {
        attached = (JSON.parse(params.attached_media) as Array<{ media_fbid: string }>).map((m) =>
          String(m.media_fbid),
        );
      } catch {
        return refuse(response, {
          code: 100,
          message: '(#100) attached_media must be a JSON array',
        });
      }
      for (const id of attached) {
        const photo = photos.get(id);
        if (!photo || photo.pageId !== pageId || photo.published) {
          return refuse(response, { code: 100, message: `(#100) Invalid attached media ${id}` });
        }
      }
    }
    if (message === '' && !params.link && attached.length === 0) {
      return refuse(response, { code: 100, message: '(#100) Missing message or attachment' });
    }
    if (duplicate(pageId, message)) return refuse(response, DUPLICATE);
    if (limited(response, pageId)) return;
    const post: FacebookPost = {
      id: `${pageId}_${nextId()}`,
      pageId,
      message,
      link: params.link ?? null,
      photoIds: attached,
      videoId: null,
      createdAt: new Date(),
    };
    posts.push(post);
    answer(response, 200, { id: post.id });
  }

  function photo(response: ServerResponse, pageId: string, params: Record<string, string>) {
    if (!params.url) return refuse(response, { code: 100, message: '(#100) url is required' });
    const published = params.published !== 'false';
    const message = params.message ?? params.caption ?? '';
    if (published && duplicate(pageId, message)) return refuse(response, DUPLICATE);
    if (published && limited(response, pageId)) return;
    const item: FacebookPhoto = { id: nextId(), pageId, url: params.url, published };
    photos.set(item.id, item);
    if (!published) return answer(response, 200, { id: item.id });
    const post: FacebookPost = {
      id: `${pageId}_${item.id}`,
      pageId,
      message,
      link: null,
      photoIds: [item.id],
      videoId: null,
      createdAt: new Date(),
    };
    posts.push(post);
    answer(response, 200, { id: item.id, post_id: post.id });
  }

  function video(response: ServerResponse, pageId: string, params: Record<string, string>) {
    if (!params.file_url)
      return refuse(response, { code: 100, message: '(#100) file_url is required' });
    const description = params.description ?? '';
    if (limited(response, pageId)) return;
    const item: FacebookVideo = {
      id: nextId(),
      pageId,
      fileUrl: params.file_url,
      description,
      pollsLeft: options.videoProcessingPolls ?? 1,
      error: nextVideoError,
      createdAt: new Date(),
    };
    nextVideoError = null;
    videos.set(item.id, item);
    posts.push({
      id: `${pageId}_${item.id}`,
      pageId,
      message: description,
      link: null,
      photoIds: [],
      videoId: item.id,
      createdAt: item.createdAt,
    });
    answer(response, 200, { id: item.id });
  }

  function videoStatus(response: ServerResponse, item: FacebookVideo) {
    const processing = item.pollsLeft > 0;
    if (processing) item.pollsLeft -= 1;
    if (!processing && item.error !== null) {
      return answer(response, 200, {
        id: item.id,
        status: {
          video_status: 'error',
          uploading_phase: { status: 'complete' },
          processing_phase: { status: 'error', error: { message: item.error } },
          publishing_phase: { status: 'not_started' },
        },
      });
    }
    answer(response, 200, {
      id: item.id,
      status: {
        video_status: processing ? 'processing' : 'ready',
        uploading_phase: { status: 'complete' },
        processing_phase: { status: processing ? 'in_progress' : 'complete' },
        publishing_phase: { status: processing ? 'not_started' : 'complete' },
      },
      ...(processing ? {} : { permalink_url: `/${item.pageId}/videos/${item.id}/` }),
    });
  }

  function recent(response: ServerResponse, pageId: string, edge: 'posts' | 'videos') {
    const mine = posts.filter(
      (post) => post.pageId === pageId && (edge === 'posts' || post.videoId !== null),
    );
    const data = mine
      .slice()
      .reverse()
      .slice(0, 25)
      .map((post) =>
        edge === 'posts'
          ? {
              id: post.id,
              message: post.message,
              created_time: post.createdAt.toISOString().replace('Z', '+0000'),
            }
          : {
              id: post.videoId,
              description: post.message,
              created_time: post.createdAt.toISOString().replace('Z', '+0000'),
            },
      );
    answer(response, 200, { data });
  }

  /** As the Page: on its own post or video only; Graph answers 100 for an unknown object. */
  function comment(
    response: ServerResponse,
    objectId: string,
    params: Record<string, string>,
    pageOf: string | undefined,
  ) {
    // A reply to a comment goes under the comment's post, with the comment as its parent.
    const parent = comments.find((made) => made.id === objectId);
    const postId = parent?.objectId ?? objectId;
    const target = posts.find((post) => post.id === postId || post.videoId === postId);
    if (!target) {
      return refuse(response, {
        code: 100,
        subcode: 33,
        message: `Unsupported post request. Object with ID '${objectId}' does not exist`,
      });
    }
    if (pageOf !== undefined && pageOf !== target.pageId) {
      return refuse(response, { code: 200, message: '(#200) Permissions error' });
    }
    if (!params.message)
      return refuse(response, { code: 100, message: '(#100) message is required' });
    const made: FacebookComment = {
      id: `${target.id}_${nextId()}`,
      objectId: postId,
      message: params.message,
      createdAt: new Date(),
      ...(parent ? { parentId: parent.id } : {}),
    };
    comments.push(made);
    answer(response, 200, { id: made.id });
  }

  /**
   * GET /{post-or-video-id}?fields=...: the object's reactions and comments (their summary's
   * total_count only when asked with `.summary(total_count)`) and, for a post, `shares` (left
   * out when nobody shared it, as Graph does; a video has no such field: error 100). A Page token
   * reads its own Page's objects only (200); unknown or removed objects are 100/33.
   */
  function numbers(
    response: ServerResponse,
    id: string,
    fields: string[],
    pageOf: string | undefined,
  ) {
    const post = posts.find((item) => item.id === id);
    const video = videos.get(id);
    const exists = post !== undefined || video !== undefined || engagement.isSet(id);
    if (!exists || engagement.isGone(id)) {
      return refuse(response, {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
        message: `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`,
      });
    }
    const owner = post?.pageId ?? video?.pageId;
    if (pageOf !== undefined && owner !== undefined && pageOf !== owner) {
      return refuse(response, { code: 200, message: '(#200) Permissions error' });
    }
    const isVideo = video !== undefined || !id.includes('_');
    const values = engagement.of(id);
    const body: Record<string, unknown> = { id };
    for (const field of fields) {
      const { edge, summary } = edgeField(field);
      if (edge === 'id') continue;
      if (edge === 'shares' && !isVideo) {
        if ((values.shares ?? 0) > 0) body.shares = { count: values.shares };
        continue;
      }
      if (edge !== 'reactions' && edge !== 'comments') {
        const node = isVideo ? 'Video' : 'Post';
        return refuse(response, {
          code: 100,
          message: `(#100) Tried accessing nonexisting field (${edge}) on node type (${node})`,
        });
      }
      const total = values[edge] ?? 0;
      body[edge] = {
        data: [],
        ...(summary
          ? {
              summary:
                edge === 'reactions'
                  ? { total_count: total, viewer_reaction: 'NONE' }
                  : { order: 'ranked', total_count: total, can_comment: true },
            }
          : {}),
      };
    }
    answer(response, 200, body);
  }

  /**
   * GET /{object-id}/comments, newest first (order=reverse_chronological, as the Page reads its
   * own post's comments): the top-level ones, or every one with filter=stream; with `fields`,
   * `from`, `created_time`, `is_hidden` and `parent` as Graph gives them. A comment's own
   * comments are its replies.
   */
  function listComments(
    response: ServerResponse,
    objectId: string,
    params: Record<string, string>,
    fields: string[],
  ) {
    const under = comments.filter((made) =>
      made.id === objectId
        ? false
        : made.parentId === objectId ||
          (made.objectId === objectId && (params.filter === 'stream' || !made.parentId)),
    );
    const detailed = fields.length > 0;
    const data = under.reverse().map((made) => ({
      id: made.id,
      message: made.message,
      ...(detailed
        ? {
            from: made.from ?? {
              id: posts.find((p) => p.id === made.objectId)?.pageId ?? '',
              name: 'Fake Page',
            },
            created_time: (made.createdAt ?? new Date())
              .toISOString()
              .replace(/\.\d{3}Z$/, '+0000'),
            is_hidden: made.hidden === true,
            ...(made.parentId ? { parent: { id: made.parentId } } : {}),
          }
        : {}),
    }));
    answer(response, 200, { data });
  }

  /** POST /{comment-id}?is_hidden=: `{ success: true }`; 100/33 for a comment not there. */
  function hideComment(response: ServerResponse, id: string, hidden: boolean) {
    const made = comments.find((comment) => comment.id === id);
    if (!made) {
      return refuse(response, {
        code: 100,
        subcode: 33,
        message: `Unsupported post request. Object with ID '${id}' does not exist`,
      });
    }
    made.hidden = hidden;
    answer(response, 200, { success: true });
  }

  /** Someone else comments on a post of the Page (or answers a comment): what a test makes. */
  function addComment(objectId: string, message: string): FacebookComment {
    const parent = comments.find((made) => made.id === objectId);
    const postId = parent?.objectId ?? objectId;
    const made: FacebookComment = {
      id: `${postId}_${nextId()}`,
      objectId: postId,
      message,
      from: { id: '10000000000000099', name: 'A Fan' },
      createdAt: new Date(),
      ...(parent ? { parentId: parent.id } : {}),
    };
    comments.push(made);
    return made;
  }

  /**
   * DELETE /{id}: a post of the Page (`{page}_{post}`, or a video's id), with its comments, or
   * one comment; `{ success: true }`. What does not exist (never made, or deleted) is 100/33, as
   * Graph answers it; another Page's object is 200.
   */
  function remove(response: ServerResponse, id: string, pageOf: string | undefined) {
    const comment = comments.find((made) => made.id === id);
    const object = comment?.objectId ?? id;
    const post = posts.find((item) => item.id === object || item.videoId === object);
    if (!post) {
      return refuse(response, {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
        message: `Unsupported delete request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`,
      });
    }
    if (pageOf !== undefined && pageOf !== post.pageId) {
      return refuse(response, { code: 200, message: '(#200) Permissions error' });
    }
    const gone = comment
      ? [comment.id]
      : [post.id, ...(post.videoId === null ? [] : [post.videoId])];
    for (let index = comments.length - 1; index >= 0; index--) {
      const made = comments[index];
      if (made && (gone.includes(made.id) || gone.includes(made.objectId))) {
        comments.splice(index, 1);
      }
    }
    if (!comment) {
      posts.splice(posts.indexOf(post), 1);
      if (post.videoId !== null) videos.delete(post.videoId);
      for (const photoId of post.photoIds) photos.delete(photoId);
    }
    for (const removed of gone) engagement.remove(removed);
    answer(response, 200, { success: true });
  }

  /**
   * Serves `segments` (after the version) when they are a Page route; false otherwise.
   * `pageOf(token)` is the Page a token may act for (undefined: any, for tokens tests bring).
   */
  function handle(
    response: ServerResponse,
    method: string,
    segments: string[],
    params: Record<string, string>,
    pageOf: string | undefined,
  ): boolean {
    const [first, edge] = segments;
    if (first === undefined) return false;
    if (segments.length === 1 && method === 'DELETE') {
      remove(response, first, pageOf);
      return true;
    }
    if (segments.length === 1 && method === 'POST' && params.is_hidden !== undefined) {
      hideComment(response, first, params.is_hidden === 'true');
      return true;
    }
    const fields = (params.fields ?? '').split(',').filter(Boolean);
    const asksNumbers = fields.some((field) => /^(reactions|comments|shares)\b/.test(field));
    if (segments.length === 1 && method === 'GET' && asksNumbers) {
      numbers(response, first, fields, pageOf);
      return true;
    }
    const known = videos.get(first);
    if (segments.length === 1 && method === 'GET' && known) {
      videoStatus(response, known);
      return true;
    }
    if (segments.length !== 2 || edge === undefined) return false;
    if (method === 'POST' && edge === 'comments') {
      comment(response, first, params, pageOf);
      return true;
    }
    if (method === 'GET' && edge === 'comments') {
      listComments(response, first, params, fields);
      return true;
    }
    const routes: Record<string, () => void> = {
      'POST feed': () => feed(response, first, params),
      'POST photos': () => photo(response, first, params),
      'POST videos': () => video(response, first, params),
      'GET posts': () => recent(response, first, 'posts'),
      'GET published_posts': () => recent(response, first, 'posts'),
      'GET videos': () => recent(response, first, 'videos'),
    };
    const route = routes[`${method} ${edge}`];
    if (!route) return false;
    if (pageOf !== undefined && pageOf !== first) {
      refuse(response, {
        code: 200,
        type: 'OAuthException',
        message: "(#200) The user hasn't authorized the application to perform this action",
      });
      return true;
    }
    route();
    return true;
  }

  return {
    engagement,
    posts,
    comments,
    addComment,
    photos,
    videos,
    handle,
    /** The next video created fails processing with this message (after its processing polls). */
    failNextVideo(message: string) {
      nextVideoError = message;
    },
  };
}
