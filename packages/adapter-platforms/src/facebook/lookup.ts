// After a crash between sending a create call and storing Facebook's answer, the intent left
// behind says a post may exist. Graph has no idempotency key, so the Page's latest posts (or
// videos) are the only way to tell "sent" from "never arrived" before sending again.
import type { PublishIntent } from '@social-publisher/domain';
import type { AuthSession } from '../shared/auth.ts';
import { findSent } from '../shared/intent.ts';
import type { createFacebookApi } from './api.ts';

export interface LookupInput {
  auth: AuthSession;
  api: ReturnType<typeof createFacebookApi>;
  pageId: string;
  /** The post's text as we sent it (message, or a video's description). */
  message: string;
  intent: PublishIntent;
  /** Videos are listed on the Page's /videos edge (their id is what /videos answered). */
  edge: 'posts' | 'videos';
}

/**
 * The id of what the earlier run created: a post (video) with the same text, created at or
 * after its intent, the one closest to it (shared/intent.ts findSent). undefined: nothing
 * there, so it never arrived and may be sent once. Throws `outcome_unknown` when Facebook
 * refuses the lookup (a permission the Page token lacks) or when the text is empty (any
 * text-less post since then could be it).
 */
export async function findSentPost(input: LookupInput): Promise<string | undefined> {
  const { auth, api, pageId } = input;
  const wanted = comparable(input.message);
  const match = await findSent({
    label: 'Facebook',
    intent: input.intent,
    read: () => auth.call((token) => api.recent(token, pageId, input.edge)),
    same: (candidate) => comparable(candidate.message) === wanted,
    pick: 'closest',
    ambiguous:
      wanted === ''
        ? 'a post without text appeared on the Page since; it may not be this one'
        : undefined,
  });
  return match?.id;
}

/** Line ends and surrounding blanks may not survive Facebook's storage: compare without them. */
const comparable = (text: string): string => text.replace(/\r\n?/g, '\n').trim();
