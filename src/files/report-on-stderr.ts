/**
 * Where a file's problems are told unless a caller says otherwise: standard error, where serve's
 * request log goes too (and with it to `--log-file`), as `svc-router: MESSAGE`.
 */
export const reportOnStderr = (message: string): void => void process.stderr.write(`svc-router: ${message}\n`);
