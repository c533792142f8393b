/** Turns the domain's batch outcomes into per-item HTTP results (one place for both routes). */
import type { BatchOutcome, PostValidation } from '@social-publisher/domain';
import { fromDomainError, toHttpError } from '../errors.ts';
import { presentPost } from '../schemas/posts.ts';

export type Position = { index: number } | { row: number; line: number };

export function createdResults(outcomes: BatchOutcome[], positions: Position[]) {
  const results = outcomes.map((outcome, at) => {
    const position = positions[at] ?? { index: at };
    if (outcome.ok) return { ...position, status: 201, data: presentPost(outcome.post) };
    // An unexpected failure of one post (logged by the use case): 500, or 503 for an outage.
    const error =
      'thrown' in outcome ? toHttpError(outcome.thrown) : fromDomainError(outcome.error);
    return {
      ...position,
      status: error.statusCode,
      error: {
        code: error.code,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
      },
    };
  });
  const created = outcomes.filter((outcome) => outcome.ok).length;
  return { dry_run: false, created, failed: outcomes.length - created, results };
}

export function dryRunResults(validations: PostValidation[], positions: Position[]) {
  const results = validations.map((validation, at) => ({
    ...(positions[at] ?? { index: at }),
    ...validation,
  }));
  return {
    dry_run: true,
    created: 0,
    failed: validations.filter((validation) => !validation.valid).length,
    results,
  };
}
