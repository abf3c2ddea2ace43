import type { StreamEvent } from '../core/stream-events.js';

export type FinishEvent = Extract<StreamEvent, { type: 'finish' }>;
export type TerminalEvent = Extract<StreamEvent, { type: 'finish' | 'error' }>;

/**
 * Cuts a canonical stream at its first terminal event (`finish` or `error`), one batch at a time,
 * for the loop that hands the batches to a client encoder: what of `batch` to hand on, or
 * undefined for nothing once the stream has ended. `onTerminal` is told of that event before the
 * batch that carries it is handed on, so whatever the encoder reads of it (the recorded usage,
 * svc_meta) is settled by then. The caller still reads what the upstream sends after the terminal
 * event, and drops it: stopping early would abort an upstream body that is about to end cleanly.
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
