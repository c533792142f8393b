/**
 * What tracing costs a create when it is off (no OTLP endpoint, so the SDK is never loaded).
 * Then the only telemetry call on a create's path is the queue adapter's `inEnqueueSpan` around
 * the queue add, on `@opentelemetry/api`'s no-op tracer: the server-span plugin and the log
 * lines' trace ids are registered only when tracing is on.
 *
 * Measured as the time of that call around an async no-op less the time of the same no-op
 * awaited directly, over many calls in alternating rounds (the median round of each); the
 * figure is that difference as a share of the API process's CPU per create, which the create
 * bench's open loop measures in the same run. A whole-bench A/B would drown a cost this size in
 * the run-to-run spread of the create figures (tens of percent on a shared two-core machine).
 */
import { inEnqueueSpan, type TraceCarrier } from '@social-publisher/telemetry';
import type { Figure } from '../lib/report.ts';
import { fmt, median } from '../lib/stats.ts';

const ROUNDS = 7;

/** The job add's stand-in: an async call that does nothing but return its argument. */
const queueAdd = async (carrier: TraceCarrier): Promise<TraceCarrier> => carrier;

async function nsPerCall(calls: number, call: (index: number) => Promise<unknown>) {
  const started = process.hrtime.bigint();
  for (let index = 0; index < calls; index++) await call(index);
  return Number(process.hrtime.bigint() - started) / calls;
}

/** Nanoseconds a create spends in the no-op telemetry: wrapped minus direct, median rounds. */
export async function tracingOffNsPerCreate(smoke: boolean): Promise<{
  wrappedNs: number;
  directNs: number;
}> {
  const calls = smoke ? 2_000 : 200_000;
  const direct = () => queueAdd({});
  const wrapped = (index: number) =>
    inEnqueueSpan('bullmq', 'publish', `post-${index}`, (carrier) => queueAdd(carrier));
  // Warm-up: both paths compiled by the optimiser before any round counts.
  await nsPerCall(calls, direct);
  await nsPerCall(calls, wrapped);
  const directRounds: number[] = [];
  const wrappedRounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    directRounds.push(await nsPerCall(calls, direct));
    wrappedRounds.push(await nsPerCall(calls, wrapped));
  }
  return { wrappedNs: median(wrappedRounds), directNs: median(directRounds) };
}

/** The figure: tracing-off cost as % of the API's CPU per create (ms of one core). */
export async function tracingOffFigure(
  label: string,
  cpuPerCreateMs: number,
  smoke: boolean,
  out: (line: string) => void,
): Promise<Figure> {
  const { wrappedNs, directNs } = await tracingOffNsPerCreate(smoke);
  const addedNs = Math.max(0, wrappedNs - directNs);
  const share = (addedNs / (cpuPerCreateMs * 1e6)) * 100;
  out(
    `create ${label} tracing off: inEnqueueSpan on the no-op tracer ${fmt(wrappedNs, 0)} ns per call, the bare call ${fmt(directNs, 0)} ns; ${fmt(addedNs, 0)} ns added per create against ${fmt(cpuPerCreateMs * 1000, 0)} us of API CPU per create: ${fmt(share, 2)} %`,
  );
  return {
    bench: 'create',
    name: `create ${label}: tracing off, added CPU per create (% of the API's CPU per create)`,
    value: share,
    unit: '%',
    target: { op: '<=', value: 3 },
    digits: 2,
  };
}
