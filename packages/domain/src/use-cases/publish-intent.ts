import type { PublishIntent, ResumeState } from '../model.ts';

/**
 * A publish intent lives in the target's resume state under this key, beside the publisher's
 * own ids: one durable write records it, and the publisher's next `saveProgress` (the answer
 * recorded) replaces the whole state, which ends it.
 */
const INTENT_KEY = '_intent';

export function intentOf(state: ResumeState | null): PublishIntent | null {
  const raw = state?.[INTENT_KEY];
  if (typeof raw !== 'object' || raw === null) return null;
  const { step, at } = raw as { step?: unknown; at?: unknown };
  if (typeof step !== 'string' || typeof at !== 'string') return null;
  const when = new Date(at);
  return Number.isNaN(when.getTime()) ? null : { step, at: when };
}

/** The publisher's own part of a resume state (null when nothing else is stored). */
export function withoutIntent(state: ResumeState | null): ResumeState | null {
  if (state === null || !(INTENT_KEY in state)) return state;
  const { [INTENT_KEY]: _intent, ...own } = state;
  return Object.keys(own).length === 0 ? null : own;
}

export function withIntent(state: ResumeState | null, intent: PublishIntent): ResumeState {
  return { ...(state ?? {}), [INTENT_KEY]: { step: intent.step, at: intent.at.toISOString() } };
}
