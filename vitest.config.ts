import { existsSync, readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// One Vitest project per workspace package: packages/* and bench. Each runs its own
// test/**/*.test.ts; every project inherits the root options below (extends: true).
const packageDirs = [
  ...readdirSync('packages', { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(`packages/${entry.name}/package.json`))
    .map((entry) => `packages/${entry.name}`),
  'bench',
];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: packageDirs.map((dir) => ({
      extends: true,
      test: {
        name: dir.replace(/^packages\//, ''),
        include: [`${dir}/test/**/*.test.ts`],
      },
    })),
    coverage: {
      enabled: true,
      provider: 'v8',
      include: ['packages/domain/src/**/*.ts'],
      // The in-memory fakes and contract suites are test code, not the core being measured.
      exclude: ['packages/domain/src/testing/**'],
      reporter: ['text-summary'],
      thresholds: {
        'packages/domain/src/**': { lines: 90 },
      },
    },
  },
});
