// After a crash between threads_publish and storing its answer, the intent left behind says a
// post may exist. Threads has no idempotency key, so the profile's latest posts (or replies,
// for a follow-up or a first reply) are the only way to tell "published" from "never arrived"
// before publishing again.
import type { AuthSession } from '../shared/auth.ts';
import { findSent } from '../shared/intent.ts';
import type { createThreadsApi } from './api.ts';

export interface LookupInput {
  auth: AuthSession;
  api: ReturnType<typeof createThreadsApi>;
  userId: string;
  /** The part's text as we sent it. */
  text: string;
  /** Where the earlier run's step began: its intent (or its container's creation). */
  intent: { step: string; at: Date };
  /** Top-level posts are on /threads, replies on /replies. */
  edge: 'threads' | 'replies';
}

/**
 * The id of what the earlier run published: a post with the same text, created at or after its
 * intent, the one closest to it (shared/intent.ts findSent). undefined: nothing there, so it
 * never arrived and may be published once. Throws `outcome_unknown` when Threads refuses the
 * lookup for good or when the text is empty (any text-less post since then could be it).
 */
export async function findPublished(input: LookupInput): Promise<string | undefined> {
  const { auth, api, userId } = input;
  const wanted = comparable(input.text);
  const match = await findSent({
    label: 'Threads',
    intent: input.intent,
    read: () => auth.call((token) => api.recent(token, userId, input.edge)),
    same: (candidate) => comparable(candidate.text) === wanted,
    pick: 'closest',
    ambiguous:
      wanted === ''
        ? 'a post without text appeared on the profile since; it may not be this one'
        : undefined,
  });
  return match?.id;
}

/** Line ends, Unicode composition and surrounding blanks may not survive: compare without them. */
const comparable = (text: string): string => text.replace(/\r\n?/g, '\n').normalize('NFC').trim();
