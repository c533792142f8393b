// The README's configuration table is kept true: every variable a descriptor declares is in it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PLATFORM_DESCRIPTORS } from '../src/index.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README configuration table', () => {
  const variables = PLATFORM_DESCRIPTORS.flatMap((descriptor) =>
    Object.values(descriptor.settings).map((setting) => [descriptor.name, setting.env] as const),
  );
  it.each(variables)('%s: %s is documented', (_platform, variable) => {
    expect(readme).toContain(`\`${variable}\``);
  });
});
