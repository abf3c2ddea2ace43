/**
 * The lines of a text as the secret scanner reads them: a line break ends one, and so does a `\n`
 * escape, the line break of text inside a JSON string (a tool call's arguments carry a whole file
 * or heredoc on one physical line). `\\n` is an escaped backslash before an `n`, not a line break.
 */

/** Whether the character at `at` follows a backslash that is not itself escaped (`\n`, not `\\n`). */
export function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (at - backslashes > 0 && text[at - backslashes - 1] === '\\') backslashes++;
  return backslashes % 2 === 1;
}

/**
 * Walks a text's lines forward only, so that finding the line of each of many words reads the text
 * once: `startOf(at)` moves to the line holding `at` (never back) and `end` is where that line ends.
 */
export class LineCursor {
  private start = 0;
  private newline: number;
  private escape: number;
  /** Where the current line ends: its line break, its `\n` escape, or the text's end. */
  end: number;

  constructor(private readonly text: string) {
    this.newline = text.indexOf('\n');
    this.escape = this.nextEscape(0);
    this.end = this.nextEnd();
  }

  startOf(at: number): number {
    while (this.end < at) {
      this.start = this.end + (this.end === this.newline ? 1 : 2);
      if (this.newline !== -1 && this.newline < this.start) this.newline = this.text.indexOf('\n', this.start);
      if (this.escape !== -1 && this.escape < this.start) this.escape = this.nextEscape(this.start);
      this.end = this.nextEnd();
    }
    return this.start;
  }

  private nextEnd(): number {
    const newline = this.newline === -1 ? this.text.length : this.newline;
    return this.escape === -1 || this.escape > newline ? newline : this.escape;
  }

  /** The next `\n` escape at or after `from` (the backslash's index), or -1. */
  private nextEscape(from: number): number {
    let at = this.text.indexOf('\\n', from);
    while (at !== -1 && !escaped(this.text, at + 1)) at = this.text.indexOf('\\n', at + 1);
    return at;
  }
}
