import type { StreamEvent } from '../core/stream-events.js';

export type FinishEvent = Extract<StreamEvent, { type: 'finish' }>;
export type TerminalEvent = Extract<StreamEvent, { type: 'finish' | 'error' }>;

/**
 * The canonical stream as a client encoder is to see it: each batch up to and including the
 * first terminal event (`finish` or `error`), and nothing after it. `onTerminal` is told of that
 * event before the batch that carries it is handed on, so whatever the encoder reads of it (the
 * recorded usage, svc_meta) is settled by then. What the upstream still sends after the terminal
 * event is read to its end and dropped: stopping early would abort an upstream body that is about
 * to end cleanly anyway.
 */
export async function* untilTerminal(batches: AsyncIterable<StreamEvent[]>, onTerminal: (event: TerminalEvent) => void): AsyncGenerator<StreamEvent[]> {
  const cut = terminalCut(onTerminal);
  for await (const batch of batches) {
    const out = cut(batch);
    if (out) yield out;
  }
}

/**
 * The same rule one batch at a time, for a loop that already steps through the batches (the
 * pipeline's relay): what of `batch` to hand on, or undefined for nothing. One async step less per
 * batch than chaining untilTerminal.
 */
export function terminalCut(onTerminal: (event: TerminalEvent) => void): (batch: StreamEvent[]) => StreamEvent[] | undefined {
  let ended = false;
  return (batch) => {
    if (ended) return undefined;
    const terminal = batch.findIndex((event) => event.type === 'finish' || event.type === 'error');
    if (terminal === -1) return batch;
    ended = true;
    onTerminal(batch[terminal] as TerminalEvent);
    return terminal === batch.length - 1 ? batch : batch.slice(0, terminal + 1);
  };
}
