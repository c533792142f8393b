import type { WebhookRequest, WebhookSender, WebhookSendResult } from '../ports/index.ts';
import { copy } from './memory-store.ts';

/** The result of one scripted attempt: an HTTP status (with extras) or a thrown error. */
export type SendStep = (Partial<WebhookSendResult> & { statusCode: number | null }) | Error;

/** A result as the real sender would report it for this status. */
export function sendResult(
  statusCode: number | null,
  extra: Partial<WebhookSendResult> = {},
): WebhookSendResult {
  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  return {
    statusCode,
    error: ok ? null : statusCode === null ? 'connection refused' : `HTTP ${statusCode}`,
    durationMs: 5,
    retryAfterMs: null,
    retryable: true,
    ...extra,
  };
}

/** Records every request; answers from a script, then 200. */
export class RecordingWebhookSender implements WebhookSender {
  readonly requests: WebhookRequest[] = [];
  #steps: SendStep[] = [];

  respond(...steps: SendStep[]): this {
    this.#steps.push(...steps);
    return this;
  }

  async send(request: WebhookRequest): Promise<WebhookSendResult> {
    this.requests.push(copy(request));
    const step = this.#steps.shift();
    if (step instanceof Error) throw step;
    return step ? sendResult(step.statusCode, step) : sendResult(200);
  }
}
