import type { TextPosition, TextProblem } from './json-text.js';

/** `FILE line 3, column 7: syntax error: value expected`: where a file goes wrong, as editors and terminals link it. */
export const describeAt = (file: string, problem: TextProblem): string => `${file} line ${problem.line}, column ${problem.column}: ${problem.message}`;

/**
 * A file that cannot be used, with the line and column of each problem (the first one leads the
 * message). Thrown when there is no earlier good version of the file to keep in force: a command
 * reading it, or a router starting on it.
 */
export class BrokenFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly [TextProblem, ...TextProblem[]],
  ) {
    super(problems.map((problem) => describeAt(file, problem)).join('\n'));
    this.name = 'BrokenFileError';
  }

  /** Where the first problem is (the `--json` error names it). */
  get position(): TextPosition {
    return { line: this.problems[0].line, column: this.problems[0].column };
  }
}
