import { CommanderError } from 'commander';
import { BrokenFileError } from '../files/broken-file.js';
import { CliError, EXIT_FAILED, EXIT_USAGE, type ErrorCode, type ErrorDetails } from './cli-error.js';

/** Commander's own codes for the outcomes that are not failures. */
const NOT_FAILURES = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);

export interface Reported {
  exitCode: number;
  /** What goes to stderr ('' when commander has already shown help or the version). */
  text: string;
}

/**
 * One error style for every failure, commander's parse errors included: `svc-router: MESSAGE`
 * on stderr, or with --json one JSON object `{"error":{"code","message","exit_code",…}}` on a
 * line of its own, so a script reads stdout for results and stderr for the reason.
 */
export function reportError(error: unknown, json: boolean): Reported {
  if (error instanceof CommanderError) {
    if (NOT_FAILURES.has(error.code)) return { exitCode: 0, text: '' };
    // commander writes "error: unknown option '--x'"; the prefix is ours to choose.
    const message = error.message.replace(/^error:\s*/, '');
    return render('usage', message, EXIT_USAGE, { commander_code: error.code.replace(/^commander\./, '') }, json, '(run with --help for usage)');
  }
  if (error instanceof CliError) return render(error.code, error.message, error.exitCode, error.details, json);
  // `FILE line 3, column 7: …`: the command could not use a file it reads; nothing was changed.
  if (error instanceof BrokenFileError) return render('broken_file', error.message, EXIT_FAILED, { file: error.file, ...error.position }, json);
  return render('failed', (error as Error)?.message ?? String(error), EXIT_FAILED, {}, json);
}

function render(code: ErrorCode, message: string, exitCode: number, details: ErrorDetails, json: boolean, hint?: string): Reported {
  if (json) return { exitCode, text: `${JSON.stringify({ error: { code, message, exit_code: exitCode, ...details } })}\n` };
  return { exitCode, text: `svc-router: ${message}\n${hint ? `${hint}\n` : ''}` };
}

/** Whether this command line asks for JSON (parse errors come before options are known). */
export const wantsJson = (argv: string[]): boolean => argv.slice(2).some((word) => word === '--json');
