/**
 * `pnpm docs:generate`: writes the platform settings of README.md, this package's README and
 * .env.example from the descriptors (between each file's generated-block markers).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PLATFORM_DESCRIPTORS, settingsDocBlocks, withBlock } from '../src/index.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

for (const block of settingsDocBlocks(PLATFORM_DESCRIPTORS)) {
  const path = join(ROOT, block.file);
  const updated = withBlock(readFileSync(path, 'utf8'), block);
  if (updated === null) {
    process.stderr.write(
      `${block.file}: the markers "${block.start}" / "${block.end}" are missing\n`,
    );
    process.exit(1);
  }
  writeFileSync(path, updated);
  process.stdout.write(`${block.file}: platform settings written\n`);
}
