import { describe, expect, it } from 'vitest';
import { sequenceToolCalls } from '../../src/core/sequence-tool-calls.js';
import type { StreamEvent } from '../../src/core/stream-events.js';

async function run(events: StreamEvent[]): Promise<StreamEvent[]> {
  // One event per batch, so reordering across batches is exercised too.
  async function* source() {
    for (const event of events) yield [event];
  }
  const out: StreamEvent[] = [];
  for await (const batch of sequenceToolCalls(source())) out.push(...batch);
  return out;
}

const usage = { inputTokens: 1, outputTokens: 1 };

describe('sequenceToolCalls', () => {
  it('passes calls that already follow one another unchanged', async () => {
    const events: StreamEvent[] = [
      { type: 'tool-call-start', id: 'a', name: 'f' },
      { type: 'tool-call-delta', id: 'a', argumentsDelta: '{}' },
      { type: 'tool-call-end', id: 'a' },
      { type: 'tool-call-start', id: 'b', name: 'g' },
      { type: 'tool-call-end', id: 'b' },
      { type: 'finish', reason: 'tool-calls', usage },
    ];
    expect(await run(events)).toEqual(events);
  });

  it('makes interleaved calls contiguous, in the order they started', async () => {
    const out = await run([
      { type: 'tool-call-start', id: 'a', name: 'f' },
      { type: 'tool-call-start', id: 'b', name: 'g' },
      { type: 'tool-call-delta', id: 'b', argumentsDelta: 'B' },
      { type: 'tool-call-delta', id: 'a', argumentsDelta: 'A' },
      { type: 'tool-call-end', id: 'a' },
      { type: 'tool-call-end', id: 'b' },
      { type: 'finish', reason: 'tool-calls', usage },
    ]);
    expect(out.map((event) => `${event.type}:${'id' in event ? event.id : ''}`)).toEqual([
      'tool-call-start:a',
      'tool-call-delta:a',
      'tool-call-end:a',
      'tool-call-start:b',
      'tool-call-delta:b',
      'tool-call-end:b',
      'finish:',
    ]);
  });

  it('lets every held call out before the finish, even when ends come only at the end', async () => {
    const out = await run([
      { type: 'tool-call-start', id: 'a', name: 'f' },
      { type: 'tool-call-start', id: 'b', name: 'g' },
      { type: 'tool-call-delta', id: 'a', argumentsDelta: 'A' },
      { type: 'tool-call-delta', id: 'b', argumentsDelta: 'B' },
      { type: 'finish', reason: 'tool-calls', usage },
    ]);
    expect(out.map((event) => event.type)).toEqual(['tool-call-start', 'tool-call-delta', 'tool-call-start', 'tool-call-delta', 'finish']);
    expect(out[2]).toMatchObject({ id: 'b' });
  });
});
