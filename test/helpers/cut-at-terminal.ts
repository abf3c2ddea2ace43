import type { StreamEvent } from '../../src/core/stream-events.js';
import { terminalCut, type TerminalEvent } from '../../src/handlers/terminal-cut.js';

/**
 * Batches as the completion pipeline hands them to a client encoder: cut at the first terminal
 * event by the pipeline's own terminalCut, `onTerminal` told first, the rest read and dropped.
 */
export async function* cutAtTerminal(batches: AsyncIterable<StreamEvent[]>, onTerminal: (event: TerminalEvent) => void): AsyncGenerator<StreamEvent[]> {
  const cut = terminalCut(onTerminal);
  for await (const batch of batches) {
    const out = cut(batch);
    if (out) yield out;
  }
}
