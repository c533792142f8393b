/** One bad or missing environment value. */
export interface ConfigProblem {
  variable: string;
  problem: string;
}

/**
 * Bad environment values, every one of them at once (fixing one only to meet the next on the
 * following start wastes an operator's time): the message is the one line the process prints
 * before it exits.
 */
export class ConfigError extends Error {
  /** The first bad variable. */
  readonly variable: string;
  readonly problems: readonly ConfigProblem[];

  constructor(variable: string, problem: string);
  constructor(problems: readonly ConfigProblem[]);
  constructor(first: string | readonly ConfigProblem[], problem?: string) {
    const problems =
      typeof first === 'string' ? [{ variable: first, problem: problem ?? '' }] : first;
    const text = problems.map((p) => `${p.variable} ${p.problem}`);
    super(
      problems.length === 1
        ? `invalid configuration: ${text[0]}`
        : `invalid configuration (${problems.length} problems): ${text.join('; ')}`,
    );
    this.name = 'ConfigError';
    this.variable = problems[0]?.variable ?? '';
    this.problems = problems;
  }
}
