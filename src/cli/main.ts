import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { handleClosedOutput } from './closed-output.js';
import { buildProgram } from './program.js';
import { reportError, wantsJson } from './report-error.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

handleClosedOutput();
const program = buildProgram(version);
quietCommander(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const { exitCode, text } = reportError(error, wantsJson(process.argv));
  if (text) process.stderr.write(text);
  process.exitCode = exitCode;
}

/**
 * Commander throws instead of exiting, and prints no errors of its own: reportError writes every
 * failure in the one style (and as JSON under --json).
 */
function quietCommander(command: Command): void {
  command.exitOverride();
  command.showHelpAfterError(false);
  command.configureOutput({ outputError: () => {} });
  for (const sub of command.commands) quietCommander(sub);
}
