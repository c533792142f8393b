export interface WebhookRequest {
  url: string;
  /** Sent byte for byte; it is what was signed. */
  body: string;
  headers: Record<string, string>;
}

export interface WebhookSendResult {
  /** HTTP status, or null when no response came (network error, timeout, refused address). */
  statusCode: number | null;
  /** Why it failed, in one sentence; null on 2xx. */
  error: string | null;
  durationMs: number;
  /** From a `Retry-After` header, when the receiver sent one. */
  retryAfterMs: number | null;
  /** false when retrying cannot help (e.g. the URL resolves to a refused address). */
  retryable: boolean;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookSendResult>;
}
