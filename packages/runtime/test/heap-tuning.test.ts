import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type HeapTuningHost, tuneHeapForServing } from '../src/heap-tuning.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function fakeHost(execArgv: string[]): HeapTuningHost & { set: string[] } {
  const set: string[] = [];
  return { execArgv, set, setFlags: (flags) => set.push(flags) };
}

describe('tuneHeapForServing', () => {
  it('turns allocation-site pretenuring off', () => {
    const host = fakeHost(['--enable-source-maps']);
    expect(tuneHeapForServing(host)).toEqual(['--no-allocation-site-pretenuring']);
    expect(host.set).toEqual(['--no-allocation-site-pretenuring']);
  });

  it.each([
    '--allocation-site-pretenuring',
    '--no-allocation-site-pretenuring',
    '--allocation_site_pretenuring',
    '--no-allocation_site_pretenuring',
    '--allocation-site-pretenuring=true',
  ])("leaves the setting to the operator's command line (%s)", (flag) => {
    const host = fakeHost(['--max-old-space-size=2048', flag]);
    expect(tuneHeapForServing(host)).toEqual([]);
    expect(host.set).toEqual([]);
  });

  it('is not fooled by a flag whose name only starts the same', () => {
    const host = fakeHost(['--allocation-site-pretenuring-something']);
    expect(tuneHeapForServing(host)).toEqual(['--no-allocation-site-pretenuring']);
  });

  it("names a flag this Node's V8 knows (an unknown one would be ignored without a word)", () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(options).toMatch(/^\s*--allocation-site-pretenuring\b/m);
  });

  it.each(['packages/app-http/src/main.ts', 'packages/app-worker/src/main.ts'])(
    '%s applies it before tracing and the rest load',
    (path) => {
      const text = readFileSync(join(ROOT, path), 'utf8');
      const tuned = text.indexOf('tuneHeapForServing();');
      expect(tuned).toBeGreaterThan(0);
      expect(tuned).toBeLessThan(text.indexOf('await startTelemetryFromEnvironment('));
      expect(tuned).toBeLessThan(text.indexOf("await import('./serve.ts')"));
    },
  );
});
