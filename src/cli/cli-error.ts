/** Exit codes: 0 success, 1 a request or operation failed, 2 bad usage (arguments, config), 3 (status) not running. */
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A failure the CLI reports as one line on stderr before exiting with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_USAGE,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string): CliError => new CliError(message, EXIT_USAGE);

/** `status`: no server is running (as an init script's status reports it). */
export const EXIT_NOT_RUNNING = 3;
