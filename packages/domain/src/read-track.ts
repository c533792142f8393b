import type { Platform } from './model.ts';

/**
 * What every followed published target holds, whatever is read of it (its numbers, its
 * comments): which target it is, where its reading stands and when the next read is due on its
 * schedule.
 */
export interface ReadTrack<State extends string> {
  targetId: string;
  postId: string;
  accountId: string;
  socialAccountId: string;
  platform: Platform;
  platformPostId: string;
  publishedAt: Date;
  sandbox: boolean;
  state: State;
  /** How many offsets of the schedule are behind it. */
  step: number;
  /** When the next read is due; null: none (the schedule is over, the post gone, or not read). */
  dueAt: Date | null;
  /** Why the last read failed or stopped; null after a read that worked. */
  error: string | null;
}
