import type { SlotSet } from '../../series-model.ts';

export interface SlotRepository {
  /** Stores (or replaces) a connection's slots. */
  put(set: SlotSet): Promise<void>;
  find(socialAccountId: string): Promise<SlotSet | null>;
  /**
   * Inside a unit of work only: holds the connections' slots until the transaction ends, in
   * every process (a database lock), so two requests never pick the same free slot.
   */
  lock(socialAccountIds: readonly string[]): Promise<void>;
  /**
   * Times within (`from`, `to`] at which a post that is not cancelled (nor rejected) is scheduled with a
   * target on one of the connections.
   */
  scheduledTimes(socialAccountIds: readonly string[], from: Date, to: Date): Promise<Date[]>;
}
