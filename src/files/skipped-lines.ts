import { describeAt } from './broken-file.js';
import type { TextProblem } from './json-text.js';

/** Lines told one by one per reading before the rest are only counted (a file of garbage must not flood the log). */
const TOLD_LINES = 20;

/**
 * The lines of an append-only JSON-lines file (the usage ledger, an outbox, the request store)
 * that a reader skips: torn by a process killed mid-write, or garbage written by something else.
 * Skipping keeps the reader up; each is reported once, with its file, line and column, so that
 * nothing is skipped unsaid. Of the lines skipped in one reading (`done` ends it), TOLD_LINES are
 * told one by one and the rest in one line with their count.
 */
export class SkippedLines {
  private told = 0;
  private untold: number[] = [];

  constructor(
    readonly file: string,
    private readonly report: (message: string) => void,
    /** What is skipped, as the report ends: `the line is skipped`. */
    private readonly what = 'the line is',
  ) {}

  skip(line: number, problem: Omit<TextProblem, 'line'>): void {
    if (this.told++ < TOLD_LINES) this.report(`${describeAt(this.file, { ...problem, line })}; ${this.what} skipped`);
    else this.untold.push(line);
  }

  /** The end of a reading: the lines not told one by one are told in one line. */
  done(): void {
    if (this.untold.length) {
      this.report(`${this.file}: ${this.untold.length} more lines that cannot be read (lines ${this.untold[0]}–${this.untold.at(-1)}) are skipped`);
    }
    this.told = 0;
    this.untold = [];
  }
}
