/**
 * The served document, judged by a linter nobody here wrote: Spectral's `spectral:oas` rules
 * (the recommended set) must report no error and no warning. Tools that generate clients,
 * mocks or tests from the document read what these rules check.
 */
import spectralCore, { type RulesetDefinition } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHarness, type Harness } from './support.ts';

const { Spectral } = spectralCore;

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

it('GET /openapi.json passes spectral:oas with 0 errors and 0 warnings', async () => {
  const response = await h.call({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  const spectral = new Spectral();
  // (The package's declared type of `oas` is narrower than what setRuleset accepts.)
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
  const results = await spectral.run(response.body);
  // Severity 0 = error, 1 = warning (2 = info and 3 = hint are advice, not failures).
  const findings = results
    .filter((result) => result.severity <= 1)
    .map(
      (result) =>
        `${result.severity === 0 ? 'error' : 'warning'} ${result.code} at ${result.path.join('.')}: ${result.message}`,
    );
  expect(findings).toEqual([]);
});
