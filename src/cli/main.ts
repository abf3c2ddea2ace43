import { readFileSync } from 'node:fs';
import { CommanderError } from 'commander';
import { CliError, EXIT_FAILED, EXIT_USAGE } from './cli-error.js';
import { handleClosedOutput } from './closed-output.js';
import { buildProgram } from './program.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

handleClosedOutput();
const program = buildProgram(version);
program.exitOverride();
for (const command of program.commands) {
  command.exitOverride();
  for (const sub of command.commands) sub.exitOverride();
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeFor(error);
}

/** Help and version exit 0; commander's usage errors 2; our own errors say which. */
function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    return EXIT_USAGE; // commander has already printed the message
  }
  if (error instanceof CliError) {
    process.stderr.write(`svc-router: ${error.message}\n`);
    return error.exitCode;
  }
  process.stderr.write(`svc-router: ${(error as Error)?.message ?? String(error)}\n`);
  return EXIT_FAILED;
}
