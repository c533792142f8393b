/** Counts hits per key in fixed windows. Memory for one process, Redis when there are several. */
export interface RateLimitHit {
  /** Hits in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends and the count restarts. */
  resetInMs: number;
}

export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<RateLimitHit>;
  /** The current window's count without adding to it (0, and `windowMs` left, when none). */
  peek(key: string, windowMs: number): Promise<RateLimitHit>;
  close(): Promise<void>;
}
