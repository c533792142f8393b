/**
 * Contract suite of the ConnectionPacer port, run against every implementation (memory, Redis):
 *
 *   import { describePacerContract } from '@social-publisher/domain/contracts/pacer';
 *   describePacerContract('memory', async () => ({ pacer: createMemoryPacer(), teardown: ... }));
 *
 * `setup` returns a fresh pacer with no state (Redis: a new key prefix). Time is passed in, so
 * the suite needs no waiting.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectionPacer, RateLimit } from '../../ports/pacer.ts';

export interface PacerContractSubject {
  pacer: ConnectionPacer;
  teardown(): Promise<void>;
}

const SIX_PER_10S: RateLimit = { count: 6, windowMs: 10_000 };
/** paceMarginMs of that limit: 5 % of the window. */
const MARGIN = 500;
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);

export function describePacerContract(
  name: string,
  setup: () => Promise<PacerContractSubject>,
): void {
  describe(`ConnectionPacer contract: ${name}`, () => {
    let subject: PacerContractSubject;
    let pacer: ConnectionPacer;
    beforeEach(async () => {
      subject = await setup();
      pacer = subject.pacer;
    });
    afterEach(async () => {
      await subject.teardown();
    });

    it('lets `count` calls through at once, then reserves one slot per holder a window later, in order', async () => {
      const decisions = [];
      for (let i = 0; i < 14; i++)
        decisions.push(await pacer.take('k', SIX_PER_10S, `h${i}`, at(0)));
      expect(decisions.slice(0, 6)).toEqual(Array.from({ length: 6 }, () => ({ ok: true })));
      const waits = decisions.slice(6).map((d) => (d.ok ? null : d.retryAt.getTime() - T0));
      // Six more one window (plus the margin) after the first six, then the next window.
      expect(waits).toEqual([
        ...Array.from({ length: 6 }, () => 10_000 + MARGIN),
        20_000 + 2 * MARGIN,
        20_000 + 2 * MARGIN,
      ]);
    });

    it('asking again before the slot is idempotent; at the slot the holder goes, and nobody else takes it', async () => {
      for (let i = 0; i < 6; i++) await pacer.take('k', SIX_PER_10S, `h${i}`, at(0));
      const first = await pacer.take('k', SIX_PER_10S, 'late', at(1_000));
      expect(first).toEqual({ ok: false, retryAt: at(10_000 + MARGIN) });
      expect(await pacer.take('k', SIX_PER_10S, 'late', at(5_000))).toEqual(first);
      // At that time the first six have left the window: five others may go, the sixth place
      // is the reserved one.
      for (let i = 0; i < 5; i++) {
        expect(await pacer.take('k', SIX_PER_10S, `o${i}`, at(10_000 + MARGIN))).toEqual({
          ok: true,
        });
      }
      expect((await pacer.take('k', SIX_PER_10S, 'o5', at(10_000 + MARGIN))).ok).toBe(false);
      expect(await pacer.take('k', SIX_PER_10S, 'late', at(10_000 + MARGIN))).toEqual({ ok: true });
    });

    it('never lets more than `count` calls into any window', async () => {
      const calls: number[] = [];
      let now = 0;
      const holders = Array.from({ length: 30 }, (_, i) => `h${i}`);
      let pending = holders.map((holder) => ({ holder, due: 0 }));
      while (pending.length > 0) {
        now = Math.min(...pending.map((p) => p.due));
        const next = [];
        for (const waiting of pending) {
          if (waiting.due > now) {
            next.push(waiting);
            continue;
          }
          const decision = await pacer.take('k', SIX_PER_10S, waiting.holder, at(now));
          if (decision.ok) calls.push(now);
          else next.push({ holder: waiting.holder, due: decision.retryAt.getTime() - T0 });
        }
        pending = next;
      }
      expect(calls).toHaveLength(30);
      for (const start of calls) {
        expect(calls.filter((c) => c >= start && c < start + 10_000).length).toBeLessThanOrEqual(6);
      }
      // And no slower than the limit allows: 5 windows for 30 calls (plus margins).
      expect(Math.max(...calls)).toBeLessThanOrEqual(40_000 + 4 * MARGIN);
    });

    it("a platform's refusal blocks the connection until its reset; waiting holders are spread from then on", async () => {
      await pacer.take('k', SIX_PER_10S, 'a', at(0));
      const early = await pacer.take('k', SIX_PER_10S, 'b', at(0));
      expect(early).toEqual({ ok: true });
      await pacer.observe('k', at(30_000), at(1_000));
      expect(await pacer.take('k', SIX_PER_10S, 'c', at(1_000))).toEqual({
        ok: false,
        retryAt: at(30_000),
      });
      const state = await pacer.state('k', SIX_PER_10S, at(2_000));
      expect(state).toMatchObject({ remaining: 0, blockedUntil: at(30_000), waiting: 1 });
      // A slot reserved before the refusal was learnt is not honoured before the reset.
      for (let i = 0; i < 4; i++) await pacer.take('k2', SIX_PER_10S, `x${i}`, at(0));
      await pacer.take('k2', SIX_PER_10S, 'x4', at(0));
      await pacer.take('k2', SIX_PER_10S, 'x5', at(0));
      const reserved = await pacer.take('k2', SIX_PER_10S, 'x6', at(0));
      expect(reserved).toEqual({ ok: false, retryAt: at(10_000 + MARGIN) });
      await pacer.observe('k2', at(60_000), at(5_000));
      const again = await pacer.take('k2', SIX_PER_10S, 'x6', at(10_000 + MARGIN));
      expect(again.ok).toBe(false);
      expect(again.ok ? 0 : again.retryAt.getTime()).toBeGreaterThanOrEqual(T0 + 60_000);
    });

    it('reports what is left, when it comes back, and forgets calls once they leave the window', async () => {
      expect(await pacer.state('k', SIX_PER_10S, at(0))).toEqual({
        remaining: 6,
        resetsAt: null,
        waiting: 0,
        blockedUntil: null,
      });
      await pacer.take('k', SIX_PER_10S, 'a', at(0));
      await pacer.take('k', SIX_PER_10S, 'b', at(1_000));
      expect(await pacer.state('k', SIX_PER_10S, at(2_000))).toEqual({
        remaining: 4,
        resetsAt: at(10_000 + MARGIN),
        waiting: 0,
        blockedUntil: null,
      });
      expect((await pacer.state('k', SIX_PER_10S, at(10_500))).remaining).toBe(5);
      expect((await pacer.state('k', SIX_PER_10S, at(11_500))).remaining).toBe(6);
      // Keys are independent.
      for (let i = 0; i < 6; i++) await pacer.take('hot', SIX_PER_10S, `h${i}`, at(0));
      expect((await pacer.take('hot', SIX_PER_10S, 'h6', at(0))).ok).toBe(false);
      expect(await pacer.take('cold', SIX_PER_10S, 'c', at(0))).toEqual({ ok: true });
      expect(await pacer.state('hot', SIX_PER_10S, at(0))).toMatchObject({
        remaining: 0,
        resetsAt: at(10_000 + MARGIN),
        waiting: 1,
      });
    });
  });
}
