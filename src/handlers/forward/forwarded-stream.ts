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
 * The forwarded stream as the client's forwarder is to see it, as translatedStream() in
 * completion.ts makes the translated one: each batch up to and including the first frame noted
 * `end` or `error`, and nothing after it. `onTerminal` is told of that note before its batch is handed on (so usage is
 * recorded when svc_meta is written); a backend that throws becomes an error note; when the
 * client stops reading, the upstream is released at once and `onExit` bills what was seen.
 */
export async function* forwardedStream(
  started: StartedForward,
  seen: SeenSoFar,
  /** A promise it returns (the usage's write) is awaited before the terminal batch is handed on. */
  onTerminal: (note: FrameNote) => void | Promise<void>,
  onExit: () => void,
): AsyncGenerator<ForwardedFrame[]> {
  try {
    for (let batch: ForwardedFrame[] | undefined = started.first; batch; ) {
      const terminal = noteAll(batch, seen);
      if (terminal !== -1) {
        const written = onTerminal(batch[terminal]!.note);
        if (written) await written;
        yield terminal === batch.length - 1 ? batch : batch.slice(0, terminal + 1);
        return;
      }
      if (batch.length) yield batch;
      const next = await started.rest.next();
      batch = next.done ? undefined : next.value;
    }
  } catch (error) {
    const note: FrameNote = { outputChars: 0, error: toRouterError(error) };
    const written = onTerminal(note);
    if (written) await written;
    yield [{ frame: undefined, note }];
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
