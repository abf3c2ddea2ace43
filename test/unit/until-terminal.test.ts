import { describe, expect, it } from 'vitest';
import { RouterError } from '../../src/core/errors.js';
import type { StreamEvent } from '../../src/core/stream-events.js';
import { untilTerminal, type FinishEvent } from '../../src/handlers/until-terminal.js';

const finish: FinishEvent = { type: 'finish', reason: 'stop', usage: { inputTokens: 3, outputTokens: 2 } };

/** A source of batches that notes how far it was read and whether it was closed early. */
function source(batches: StreamEvent[][]) {
  const state = { read: 0, closed: false };
  async function* generate(): AsyncGenerator<StreamEvent[]> {
    try {
      for (const batch of batches) {
        state.read++;
        yield batch;
      }
    } finally {
      state.closed = state.read < batches.length;
    }
  }
  return { state, batches: generate() };
}

describe('untilTerminal', () => {
  it('hands on batches up to the finish, records it before the batch leaves, and reads the rest without handing it on', async () => {
    const upstream = source([[{ type: 'start' }, { type: 'text-start' }], [{ type: 'text-delta', text: 'hi' }, { type: 'text-end' }, finish, { type: 'text-delta', text: 'late' }], [{ type: 'text-delta', text: 'later' }]]);
    const seen: string[] = [];
    const out: StreamEvent[][] = [];
    for await (const batch of untilTerminal(upstream.batches, (event) => event.type === 'finish' && seen.push(`finish ${event.usage.outputTokens} after ${out.length} batches`))) out.push(batch);
    expect(out).toEqual([[{ type: 'start' }, { type: 'text-start' }], [{ type: 'text-delta', text: 'hi' }, { type: 'text-end' }, finish]]);
    expect(seen).toEqual(['finish 2 after 1 batches']);
    expect(upstream.state).toEqual({ read: 3, closed: false });
  });

  it('ends at an error, tells of it alone, and drops a finish that follows it', async () => {
    const error = new RouterError(502, 'upstream', 'broke');
    const upstream = source([[{ type: 'start' }, { type: 'error', error }], [finish]]);
    const told: string[] = [];
    const out: StreamEvent[][] = [];
    for await (const batch of untilTerminal(upstream.batches, (event) => told.push(event.type))) out.push(batch);
    expect(out).toEqual([[{ type: 'start' }, { type: 'error', error }]]);
    expect(told).toEqual(['error']);
  });

  it('closes the source when its reader stops early (a client gone)', async () => {
    const upstream = source([[{ type: 'start' }], [{ type: 'text-delta', text: 'a' }], [finish]]);
    for await (const batch of untilTerminal(upstream.batches, () => undefined)) {
      expect(batch).toEqual([{ type: 'start' }]);
      break;
    }
    expect(upstream.state).toEqual({ read: 1, closed: true });
  });
});
