import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { usageError } from '../cli-error.js';
import { SHELLS } from '../completion-hints.js';

/** Prints the completion script shipped in completions/ (generated from the command tree by `npm run docs`). */
export function runCompletion(shell: string): void {
  if (!(SHELLS as readonly string[]).includes(shell)) throw usageError(`unknown shell '${shell}'; expected one of ${SHELLS.join(', ')}`);
  const file = new URL(`../../../completions/svc-router.${shell}`, import.meta.url);
  process.stdout.write(fs.readFileSync(fileURLToPath(file), 'utf8'));
}
