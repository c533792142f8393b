/** Figures, their targets, and the plain-text lines and summary table printed by `pnpm bench`. */
import { fmt } from './stats.ts';

export interface Target {
  op: '>=' | '<=';
  value: number;
}

export interface Figure {
  bench: string;
  /** e.g. `create postgres+redis: API req/s`. */
  name: string;
  value: number;
  unit: string;
  /** Absent: informational (floors, breakdowns). */
  target?: Target;
  /** Fixed digits for the value; default by magnitude. */
  digits?: number;
}

export type Out = (line: string) => void;

export const stdoutOut: Out = (line) => {
  process.stdout.write(`${line}\n`);
};

export function met(figure: Figure): boolean | null {
  if (!figure.target || !Number.isFinite(figure.value)) return figure.target ? false : null;
  return figure.target.op === '>='
    ? figure.value >= figure.target.value
    : figure.value <= figure.target.value;
}

/**
 * How far a figure is from its target, as a factor: 1 = exactly on target, < 1 = worse.
 * (value / target for ">=", target / value for "<=").
 */
export function score(figure: Figure): number {
  if (!figure.target) return Number.POSITIVE_INFINITY;
  const { op, value: target } = figure.target;
  if (!Number.isFinite(figure.value)) return 0;
  if (op === '>=') return target === 0 ? Number.POSITIVE_INFINITY : figure.value / target;
  return figure.value <= 0 ? Number.POSITIVE_INFINITY : target / figure.value;
}

export function targetText(target: Target | undefined, unit: string): string {
  if (!target) return '-';
  return `${target.op} ${fmt(target.value)}${unit ? ` ${unit}` : ''}`;
}

export function valueText(figure: Figure): string {
  return `${fmt(figure.value, figure.digits)}${figure.unit ? ` ${figure.unit}` : ''}`;
}

/** One plain line per figure: `figure <name> = <value> <unit> (target ..., met)`. */
export function figureLine(figure: Figure): string {
  const verdict = met(figure);
  const tail = figure.target
    ? ` (target ${targetText(figure.target, figure.unit)}: ${verdict ? 'met' : 'NOT MET'})`
    : '';
  return `figure ${figure.name} = ${valueText(figure)}${tail}`;
}

export function summaryTable(figures: readonly Figure[]): string[] {
  const rows = figures.map((figure) => {
    const verdict = met(figure);
    return [
      figure.name,
      valueText(figure),
      targetText(figure.target, figure.unit),
      verdict === null ? '-' : verdict ? 'met' : 'not met',
    ];
  });
  const header = ['figure', 'value', 'target', 'met'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] as string).length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] as number)).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...rows.map(line),
  ];
}
