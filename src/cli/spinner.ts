import type { WriteStream } from 'node:tty';

/** A progress indicator on standard error; `stop()` may be called any number of times. */
export interface Spinner {
  stop(): void;
}

const NO_SPINNER: Spinner = { stop() {} };

/**
 * Whether `stream` can show an animation: a terminal with a positive width, outside CI and not
 * TERM=dumb. A terminal that reports 0 columns (`script`, some agents' shells and CI wrappers)
 * sends ora into an endless loop of clear-line writes, so it never gets a spinner.
 */
export function canAnimate(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): boolean {
  if (stream.isTTY !== true || env.TERM === 'dumb' || 'CI' in env) return false;
  return hasWidth(stream);
}

const hasWidth = (stream: NodeJS.WriteStream): boolean => typeof stream.columns === 'number' && stream.columns > 0;

/**
 * The one way a command shows a spinner: on standard error, only where `canAnimate` allows, and
 * stopped (once) the moment the terminal shrinks to no width.
 */
export async function startSpinner(text: string, stream: NodeJS.WriteStream = process.stderr): Promise<Spinner> {
  if (!canAnimate(stream)) return NO_SPINNER;
  const { default: ora } = await import('ora');
  const spinner = ora({ text, stream, isEnabled: true }).start();
  let stopped = false;
  const onResize = () => {
    if (!hasWidth(stream)) stop();
  };
  const stop = () => {
    if (stopped) return;
    stopped = true;
    (stream as WriteStream).off('resize', onResize);
    spinner.stop();
  };
  (stream as WriteStream).on('resize', onResize);
  return { stop };
}
