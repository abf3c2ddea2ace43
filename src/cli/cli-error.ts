/**
 * Exit codes, the same for every command (docs/cli.md lists them): 0 success; 1 the request was
 * refused (the router answered with an error) or an operation failed, including a well-formed
 * command whose subject is missing or already there (`keys revoke nobody`, a second `init`); 2 bad
 * usage: the command line itself is wrong (an unknown option, a malformed value, an unreadable or
 * invalid file given to it) or no key is stored; 3 (`status`) not running; 4 the server could not
 * be reached. `doctor` exits with its number of failed checks instead.
 */
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** `status`: no server is running (as an init script's status reports it). */
export const EXIT_NOT_RUNNING = 3;
/** Nothing answered at the router's address (connection refused, timeout, unknown host). */
export const EXIT_UNREACHABLE = 4;

/**
 * A stable, machine-readable name for each kind of failure: what `--json` puts in
 * `error.code` on stderr. Scripts may match on these; they only ever grow.
 */
export const ERROR_CODES = {
  usage: 'a bad argument, option or setting (exit 2)',
  not_initialised: 'no key is stored yet: run svc-router init (exit 2)',
  request_refused: 'the router answered with an error status; `status` and `server_code` say which (exit 1)',
  unreachable: 'nothing answered at the router address (exit 4)',
  port_in_use: 'serve: the port is taken by another program (exit 1)',
  already_running: 'serve: a serve of this config directory already runs; `pid` and `url` say which (exit 1)',
  missing_environment: 'restart: this shell lacks variables the server was started with; `variables` names them (exit 1)',
  failed: 'an operation failed: what the command names is missing or already there, a file could not be written, a merge was refused, … (exit 1)',
  broken_file: 'a file the router or a command reads (config.json) is not valid; the message names it, with the line and column (exit 1)',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** What a refused request adds to the JSON error: the HTTP status and the router's own code. */
export interface ErrorDetails {
  status?: number;
  server_code?: string;
  [field: string]: unknown;
}

/** A failure the CLI reports on stderr (one line, or one JSON object under --json) before exiting with `exitCode`. */
export class CliError extends Error {
  readonly code: ErrorCode;
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILED,
    code?: ErrorCode,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'CliError';
    this.code = code ?? defaultCode(exitCode);
  }
}

function defaultCode(exitCode: number): ErrorCode {
  if (exitCode === EXIT_USAGE) return 'usage';
  if (exitCode === EXIT_UNREACHABLE) return 'unreachable';
  return 'failed';
}

/** The command line is wrong whatever the config holds: an unknown option, a malformed value (exit 2). */
export const usageError = (message: string): CliError => new CliError(message, EXIT_USAGE, 'usage');

/**
 * The command line is fine, but what it names is not there (an unknown developer, route, backend or
 * price) or is there already (a key, an --output file): exit 1, like any other failed operation.
 */
export const failedError = (message: string): CliError => new CliError(message, EXIT_FAILED, 'failed');

/** No key is stored yet, and none was given (exit 2, as usage: the fix is a command to run first). */
export const notInitialisedError = (message: string): CliError => new CliError(message, EXIT_USAGE, 'not_initialised');

export const unreachableError = (message: string): CliError => new CliError(message, EXIT_UNREACHABLE, 'unreachable');

export const refusedError = (message: string, details: ErrorDetails): CliError => new CliError(message, EXIT_FAILED, 'request_refused', details);
