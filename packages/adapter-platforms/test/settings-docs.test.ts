// The platform settings in README.md, this package's README and .env.example are rendered from
// the descriptors: a setting added, renamed or described anew without `pnpm docs:generate`
// fails here.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PLATFORM_DESCRIPTORS, settingsDocBlocks, withBlock } from '../src/index.ts';
import { markdownTable, platformEnvExample } from '../src/settings-docs.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('generated platform settings', () => {
  it.each(settingsDocBlocks(PLATFORM_DESCRIPTORS).map((block) => [block.file, block]))(
    '%s is current (run pnpm docs:generate)',
    (_file, block) => {
      const text = readFileSync(join(ROOT, block.file), 'utf8');
      expect(withBlock(text, block), `markers missing in ${block.file}`).toBe(text);
    },
  );

  it('lists every setting and alias of every platform in .env.example', () => {
    const env = platformEnvExample(PLATFORM_DESCRIPTORS);
    for (const descriptor of PLATFORM_DESCRIPTORS) {
      for (const setting of Object.values(descriptor.settings)) {
        for (const name of [setting.env, ...(setting.aliases ?? [])]) {
          expect(env).toMatch(new RegExp(`^# ${name}=`, 'm'));
        }
      }
    }
  });

  it('pads a table as the formatter does', () => {
    expect(markdownTable(['a', 'bb'], [['long cell', 'x']])).toBe(
      ['| a         | bb  |', '| --------- | --- |', '| long cell | x   |'].join('\n'),
    );
  });
});
