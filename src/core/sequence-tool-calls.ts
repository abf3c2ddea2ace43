import type { StreamEvent } from './stream-events.js';

/**
 * Reorders a canonical stream so each tool call's start, deltas and end are contiguous, for client
 * grammars that cannot interleave blocks (Anthropic's content blocks). Upstreams that stream
 * parallel calls one after another pass through unchanged; interleaved ones are held back, in
 * order, until the call before them has ended. One batch out per batch in (empty ones skipped).
 */
export async function* sequenceToolCalls(batches: AsyncIterable<StreamEvent[]>): AsyncGenerator<StreamEvent[]> {
  let active: string | undefined;
  const waiting = new Map<string, StreamEvent[]>(); // later calls, in the order they started
  const held: StreamEvent[] = []; // other events that arrived while calls were pending

  function release(out: StreamEvent[]): void {
    while (active === undefined && waiting.size) {
      const [id, queued] = waiting.entries().next().value as [string, StreamEvent[]];
      waiting.delete(id);
      out.push(...queued);
      if (!queued.some((event) => event.type === 'tool-call-end')) active = id;
    }
    if (active === undefined) out.push(...held.splice(0));
  }

  function sequence(event: StreamEvent, out: StreamEvent[]): void {
    if (event.type === 'tool-call-start' || event.type === 'tool-call-delta' || event.type === 'tool-call-end') {
      if (active === undefined && event.type === 'tool-call-start' && !waiting.size) active = event.id;
      if (event.id === active) {
        out.push(event);
        if (event.type === 'tool-call-end') {
          active = undefined;
          release(out);
        }
      } else {
        const queue = waiting.get(event.id);
        if (queue) queue.push(event);
        else waiting.set(event.id, [event]);
      }
    } else if (active !== undefined || waiting.size) {
      if (event.type === 'finish' || event.type === 'error') {
        // Nothing more will arrive: let every held call out, in order, before the end.
        active = undefined;
        release(out);
        active = undefined;
        for (const queued of waiting.values()) out.push(...queued);
        waiting.clear();
        out.push(...held.splice(0), event);
      } else {
        held.push(event);
      }
    } else {
      out.push(event);
    }
  }

  for await (const batch of batches) {
    const out: StreamEvent[] = [];
    for (const event of batch) sequence(event, out);
    if (out.length) yield out;
  }
}
