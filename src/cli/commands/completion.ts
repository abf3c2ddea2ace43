import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { usageError } from '../cli-error.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** Prints the completion script shipped in completions/, so the two can never differ. */
export function runCompletion(shell: string): void {
  if (!(SHELLS as readonly string[]).includes(shell)) throw usageError(`unknown shell '${shell}'; expected one of ${SHELLS.join(', ')}`);
  const file = new URL(`../../../completions/svc-router.${shell}`, import.meta.url);
  process.stdout.write(fs.readFileSync(fileURLToPath(file), 'utf8'));
}
