/**
 * Per-port timings: wraps a runtime's CoreDeps (repositories, unit of work, queue, publishers,
 * webhook sender) so every call is counted and timed. Shows how many round trips one item costs
 * and how long each takes, without touching the packages. Mutates `deps` in place, so the apps
 * and the worker that hold the same object see the wrapped ports.
 */
import type {
  CoreDeps,
  PlatformMetricsReader,
  PlatformPublisher,
  Repositories,
} from '@social-publisher/domain';
import { fmt, percentile } from './stats.ts';

interface Stat {
  count: number;
  totalMs: number;
  /** Every call's latency (ms), for the p99: a tail is where a latency target is lost. */
  samples: number[];
}

export interface Instrumentation {
  reset(): void;
  /** One line per port method, largest total time first, per item of work. */
  lines(label: string, items: number): string[];
  /** The average latency (ms) of one call of `name` (e.g. `reader twitter.read`); null: none. */
  average(name: string): number | null;
}

type AnyFn = (...args: unknown[]) => unknown;

export function instrumentDeps(deps: CoreDeps): Instrumentation {
  const stats = new Map<string, Stat>();
  const timed = <F extends AnyFn>(name: string, fn: F): F =>
    function (this: unknown, ...args: unknown[]) {
      const start = performance.now();
      const settle = () => {
        const stat = stats.get(name) ?? { count: 0, totalMs: 0, samples: [] };
        const ms = performance.now() - start;
        stat.count += 1;
        stat.totalMs += ms;
        stat.samples.push(ms);
        stats.set(name, stat);
      };
      const result = fn.apply(this, args);
      if (result instanceof Promise) return result.finally(settle);
      settle();
      return result;
    } as F;

  const wrapObject = <T extends object>(prefix: string, target: T): T => {
    const wrapped: Record<string, unknown> = {};
    for (const key of Object.keys(target)) {
      const value = (target as Record<string, unknown>)[key];
      wrapped[key] =
        typeof value === 'function'
          ? timed(`${prefix}.${key}`, value.bind(target) as AnyFn)
          : value;
    }
    return wrapped as T;
  };

  // One wrapper per repositories object (each transaction gets its own), built once.
  const wrappedRepos = new WeakMap<Repositories, Repositories>();
  const wrapRepos = (prefix: string, repos: Repositories): Repositories => {
    const known = wrappedRepos.get(repos);
    if (known) return known;
    const wrapped: Record<string, unknown> = {};
    for (const [name, repo] of Object.entries(repos)) {
      wrapped[name] = wrapObject(`${prefix}${name}`, repo as object);
    }
    wrappedRepos.set(repos, wrapped as unknown as Repositories);
    return wrapped as unknown as Repositories;
  };

  const { uow, queue, webhookSender, platforms } = deps;
  deps.repos = wrapRepos('', deps.repos);
  deps.uow = {
    run: timed('uow.run (whole transaction)', ((work: (repos: Repositories) => Promise<unknown>) =>
      uow.run((repos) => work(wrapRepos('tx ', repos)))) as AnyFn) as CoreDeps['uow']['run'],
  };
  deps.queue = wrapObject('queue', queue);
  deps.webhookSender = wrapObject('webhookSender', webhookSender);
  const publishers = new Map<string, PlatformPublisher>();
  const readers = new Map<string, PlatformMetricsReader>();
  deps.platforms = {
    names: platforms.names,
    rules: (platform) => platforms.rules(platform),
    oauth: (platform) => platforms.oauth(platform),
    credentials: (platform) => platforms.credentials(platform),
    remover: (platform) => platforms.remover(platform),
    commentsClient: (platform) => platforms.commentsClient(platform),
    metricsReader(platform) {
      const reader = platforms.metricsReader(platform);
      if (!reader) return reader;
      let wrapped = readers.get(platform);
      if (!wrapped) {
        const read = reader.read.bind(reader) as AnyFn;
        wrapped = {
          ...reader,
          read: timed(`reader ${platform}.read`, read) as PlatformMetricsReader['read'],
        };
        readers.set(platform, wrapped);
      }
      return wrapped;
    },
    get(platform) {
      const publisher = platforms.get(platform);
      if (!publisher) return publisher;
      let wrapped = publishers.get(platform);
      if (!wrapped) {
        wrapped = {
          ...publisher,
          publish: timed(
            `publisher ${platform}.publish`,
            publisher.publish as AnyFn,
          ) as PlatformPublisher['publish'],
          resume: timed(
            `publisher ${platform}.resume`,
            publisher.resume as AnyFn,
          ) as PlatformPublisher['resume'],
        };
        publishers.set(platform, wrapped);
      }
      return wrapped;
    },
  };

  return {
    reset: () => stats.clear(),
    average(name) {
      const stat = stats.get(name);
      return stat && stat.count > 0 ? stat.totalMs / stat.count : null;
    },
    lines(label, items) {
      const rows = [...stats.entries()].sort((a, b) => b[1].totalMs - a[1].totalMs);
      const out = [
        `stages ${label}: port calls per item (${items} items), average and p99 latency of one call (includes waiting for a pool connection or a shared statement):`,
      ];
      for (const [name, stat] of rows) {
        out.push(
          `  ${name.padEnd(44)} ${fmt(stat.count / Math.max(1, items), 2).padStart(6)} calls/item  ${fmt(stat.totalMs / stat.count, 2).padStart(7)} ms avg  ${fmt(percentile(stat.samples, 99), 2).padStart(7)} ms p99`,
        );
      }
      return out;
    },
  };
}
