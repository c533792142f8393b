/**
 * src/schema.ts must be what the generator makes of the document the API serves now: a route
 * schema changed without regenerating fails here, not in a client's production build.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { renderSchema, SCHEMA_FILE, SCHEMA_PATH } from '../scripts/render-schema.ts';
import { fetchServedDocument } from '../scripts/served-document.ts';

/** Where two texts first differ, as `line N: checked-in | generated`. */
function firstDifference(checkedIn: string, generated: string): string {
  const a = checkedIn.split('\n');
  const b = generated.split('\n');
  const line = a.findIndex((text, index) => text !== b[index]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}: ${JSON.stringify(a[at] ?? '<end>')} | ${JSON.stringify(b[at] ?? '<end>')}`;
}

it('the checked-in schema matches the served OpenAPI document', async () => {
  const expected = await renderSchema(await fetchServedDocument());
  const checkedIn = readFileSync(SCHEMA_PATH, 'utf8');
  // One clear instruction (and where it starts) instead of a 6000-line diff.
  expect(
    checkedIn === expected,
    `${SCHEMA_FILE} is out of date with GET /openapi.json: run \`pnpm client:generate\` and commit the result (first difference at ${firstDifference(checkedIn, expected)})`,
  ).toBe(true);
});
