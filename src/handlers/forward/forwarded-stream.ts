import { toRouterError } from '../../core/errors.js';
import type { ForwardedFrame, FrameNote } from '../../core/forwarded.js';
import type { Usage } from '../../core/reply.js';
import type { StartedForward } from './forward-chain.js';

/** What passed so far: the upstream's latest usage, and the output characters, to bill a stream cut short. */
export interface SeenSoFar {
  usage: Usage | undefined;
  outputChars: number;
}

/**
 * The forwarded stream as the client gets it, as translatedStream() in completion.ts makes the
 * translated one: each batch up to and including the first frame noted `end` or `error`, and
 * nothing after it, through the client format's encoder (one text per batch; a batch it makes
 * nothing of is not handed on). `onTerminal` is told of that note before its batch is encoded (so
 * usage is recorded when svc_meta is written); a backend that throws becomes an error note; when
 * the client stops reading, the upstream is released at once and `onExit` bills what was seen.
 */
export async function* forwardedStream(
  started: StartedForward,
  seen: SeenSoFar,
  encode: (batch: ForwardedFrame[]) => string,
  /** A promise it returns (the usage's write) is awaited before the terminal batch is encoded. */
  onTerminal: (note: FrameNote) => void | Promise<void>,
  onExit: () => void,
): AsyncGenerator<string> {
  try {
    for (let batch: ForwardedFrame[] | undefined = started.first; batch; ) {
      const terminal = noteAll(batch, seen);
      if (terminal !== -1) {
        const written = onTerminal(batch[terminal]!.note);
        if (written) await written;
        const out = encode(terminal === batch.length - 1 ? batch : batch.slice(0, terminal + 1));
        if (out) yield out;
        return;
      }
      const out = batch.length ? encode(batch) : '';
      if (out) yield out;
      const next = await started.rest.next();
      batch = next.done ? undefined : next.value;
    }
  } catch (error) {
    const note: FrameNote = { outputChars: 0, error: toRouterError(error) };
    const written = onTerminal(note);
    if (written) await written;
    const out = encode([{ frame: undefined, note }]);
    if (out) yield out;
  } finally {
    await started.rest.return?.();
    onExit();
  }
}

/** Notes each frame's usage and output; the index of the first terminal frame, or -1. */
function noteAll(batch: ForwardedFrame[], seen: SeenSoFar): number {
  for (let i = 0; i < batch.length; i++) {
    const { note } = batch[i]!;
    seen.outputChars += note.outputChars;
    if (note.usage) seen.usage = note.usage;
    if (note.end || note.error) return i;
  }
  return -1;
}
