import type { StreamEvent } from './stream-events.js';

/**
 * Reorders a canonical stream so each tool call's start, deltas and end are contiguous, for client
 * grammars that cannot interleave blocks (Anthropic's content blocks). Upstreams that stream
 * parallel calls one after another pass through unchanged; interleaved ones are held back, in
 * order, until the call before them has ended.
 */
export async function* sequenceToolCalls(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
  let active: string | undefined;
  const waiting = new Map<string, StreamEvent[]>(); // later calls, in the order they started
  const held: StreamEvent[] = []; // other events that arrived while calls were pending

  function* release(): Generator<StreamEvent> {
    while (active === undefined && waiting.size) {
      const [id, queued] = waiting.entries().next().value as [string, StreamEvent[]];
      waiting.delete(id);
      yield* queued;
      if (!queued.some((event) => event.type === 'tool-call-end')) active = id;
    }
    if (active === undefined) yield* held.splice(0);
  }

  for await (const event of events) {
    if (event.type === 'tool-call-start' || event.type === 'tool-call-delta' || event.type === 'tool-call-end') {
      if (active === undefined && event.type === 'tool-call-start' && !waiting.size) active = event.id;
      if (event.id === active) {
        yield event;
        if (event.type === 'tool-call-end') {
          active = undefined;
          yield* release();
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
        yield* release();
        active = undefined;
        for (const queued of waiting.values()) yield* queued;
        waiting.clear();
        yield* held.splice(0);
        yield event;
      } else {
        held.push(event);
      }
    } else {
      yield event;
    }
  }
}
