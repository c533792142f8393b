/** Entities of repeating posts and posting slots (model.ts holds the others). */
import type { Platform, PlatformOptions, ThreadPart } from './model.ts';

export type PostSeriesStatus = 'active' | 'stopped' | 'finished';

/** One destination every occurrence of a series publishes to. */
export interface SeriesTarget {
  socialAccountId: string;
  platform: Platform;
  sandbox: boolean;
}

/** What every occurrence of a series publishes: the first post as it was created. */
export interface SeriesTemplate {
  content: string;
  mediaUrls: string[];
  platformOptions: PlatformOptions;
  /** Follow-ups and first comment of every occurrence (absent in series stored before them). */
  thread?: ThreadPart[];
  firstComment?: string | null;
  targets: SeriesTarget[];
}

/**
 * A repeating post: an RRULE in an IANA timezone, starting at `firstAt` (the first occurrence).
 * Each occurrence is its own post, created ahead of time by `extendSeries`.
 */
export interface PostSeries {
  id: string;
  accountId: string;
  createdBy: string;
  /** The RRULE as given, without DTSTART, COUNT or UNTIL (those are fields of their own). */
  rrule: string;
  timezone: string;
  /** How many occurrences in all (the first included), or null. */
  count: number | null;
  /** No occurrence after this instant, or null. */
  until: Date | null;
  firstAt: Date;
  template: SeriesTemplate;
  status: PostSeriesStatus;
  createdAt: Date;
  updatedAt: Date;
}

/** An occurrence that has its post: the rule's time (the post may have been moved since). */
export interface SeriesOccurrence {
  occurrenceAt: Date;
  postId: string;
}

export const SLOT_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type SlotDay = (typeof SLOT_DAYS)[number];

/** A weekly wall-clock time, e.g. `{ day: 'mon', time: '09:30' }`. */
export interface Slot {
  day: SlotDay;
  time: string;
}

/** A connection's posting slots: weekly wall-clock times in an IANA timezone. */
export interface SlotSet {
  socialAccountId: string;
  timezone: string;
  slots: Slot[];
  updatedAt: Date;
}
