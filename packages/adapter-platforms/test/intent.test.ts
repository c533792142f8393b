// sendOnce: the intent is recorded before the call, kept when the call may have reached the
// platform, dropped when the answer proves nothing was created; and one create call per
// connection is in flight at a time in a process (a crash leaves at most one unaccounted send
// per account).
import { describe, expect, it } from 'vitest';
import { sendOnce } from '../src/shared/intent.ts';
import { PublishFailure } from '../src/shared/outcome.ts';
import { makeRequest } from './helpers.ts';

const later = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

function onConnection(id: string) {
  const harness = makeRequest({ platform: 'tiktok' });
  harness.request.connection.id = id;
  return harness;
}

describe('sendOnce', () => {
  it('records the intent before sending and leaves it to saveProgress after an answer', async () => {
    const harness = onConnection('c-answer');
    const seen: Array<string | null> = [];
    const result = await sendOnce(harness.request, 'create', async () => {
      seen.push(harness.pendingIntent()?.step ?? null);
      return 'id-1';
    });
    expect(result).toBe('id-1');
    expect(seen).toEqual(['create']);
    expect(harness.pendingIntent()?.step).toBe('create');
  });

  it('drops the intent when the platform refused (nothing created), keeps it when unsure', async () => {
    const refused = onConnection('c-refused');
    const refusal = new PublishFailure({
      kind: 'failed',
      code: 'invalid_params',
      message: 'no',
      retryable: false,
    });
    await expect(sendOnce(refused.request, 'create', () => Promise.reject(refusal))).rejects.toBe(
      refusal,
    );
    expect(refused.pendingIntent()).toBeNull();

    const unsure = onConnection('c-unsure');
    const reset = new PublishFailure(
      { kind: 'failed', code: 'network_error', message: 'socket hang up', retryable: true },
      { maybeSent: true },
    );
    await expect(sendOnce(unsure.request, 'create', () => Promise.reject(reset))).rejects.toBe(
      reset,
    );
    expect(unsure.pendingIntent()?.step).toBe('create');
  });

  it('sends one create call per connection at a time; other connections do not wait', async () => {
    const events: string[] = [];
    const call = (name: string, ms: number) => async () => {
      events.push(`${name} start`);
      await later(ms, null);
      events.push(`${name} end`);
      return name;
    };
    await Promise.all([
      sendOnce(onConnection('c-serial').request, 'create', call('a1', 60)),
      sendOnce(onConnection('c-serial').request, 'create', call('a2', 10)),
      sendOnce(onConnection('c-other').request, 'create', call('b1', 20)),
    ]);
    expect(events).toEqual(['a1 start', 'b1 start', 'b1 end', 'a1 end', 'a2 start', 'a2 end']);
  });

  it('an aborted job stops waiting for its turn without recording an intent', async () => {
    const first = onConnection('c-abort');
    const second = onConnection('c-abort');
    const running = sendOnce(first.request, 'create', () => later(80, 'first'));
    const waiting = sendOnce(second.request, 'create', () => later(1, 'second'));
    second.controller.abort(new Error('shutting down'));
    await expect(waiting).rejects.toThrow('shutting down');
    expect(second.intents).toEqual([]);
    expect(await running).toBe('first');
    // The chain is not left blocked behind the aborted one.
    expect(await sendOnce(onConnection('c-abort').request, 'create', async () => 'third')).toBe(
      'third',
    );
  });
});
