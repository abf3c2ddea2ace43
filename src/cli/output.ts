import chalk from 'chalk';

// NO_COLOR (https://no-color.org) wins over any colour detection.
if (process.env.NO_COLOR) chalk.level = 0;

export { chalk };

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

export const printLine = (text = ''): void => {
  process.stdout.write(`${text}\n`);
};

export const warn = (text: string): void => {
  process.stderr.write(`${chalk.yellow('warning:')} ${text}\n`);
};

/** Something worth knowing that is not a problem (stderr, so stdout stays the result). */
export const note = (text: string): void => {
  process.stderr.write(`${chalk.dim('note:')} ${text}\n`);
};

/** A simple aligned table for human-readable listings. */
export function printTable(rows: string[][], header: string[]): void {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  const format = (row: string[]) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd();
  printLine(chalk.bold(format(header)));
  for (const row of rows) printLine(format(row));
}
