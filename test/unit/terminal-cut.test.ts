import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../../src/core/errors.js';
import type { StreamEvent } from '../../src/core/stream-events.js';
import { terminalCut, type FinishEvent, type TerminalEvent } from '../../src/handlers/terminal-cut.js';

const finish: FinishEvent = { type: 'finish', reason: 'stop', usage: { inputTokens: 3, outputTokens: 2 } };
const error = new RouterError(502, 'upstream', 'broke');

/** Runs the cut over the batches as the pipeline does; what it handed on, and each terminal it told of with the batches handed on by then. */
function run(batches: StreamEvent[][]) {
  const out: StreamEvent[][] = [];
  const told: { event: TerminalEvent; handedOn: number }[] = [];
  const cut = terminalCut((event) => told.push({ event, handedOn: out.length }));
  for (const batch of batches) {
    const kept = cut(batch);
    if (kept) out.push(kept);
  }
  return { out, told };
}

describe('terminalCut', () => {
  it('hands on batches up to the finish, tells of it before its batch leaves, and nothing after', () => {
    const { out, told } = run([[{ type: 'start' }, { type: 'text-start' }], [{ type: 'text-delta', text: 'hi' }, { type: 'text-end' }, finish, { type: 'text-delta', text: 'late' }], [{ type: 'text-delta', text: 'later' }]]);
    expect(out).toEqual([[{ type: 'start' }, { type: 'text-start' }], [{ type: 'text-delta', text: 'hi' }, { type: 'text-end' }, finish]]);
    expect(told).toEqual([{ event: finish, handedOn: 1 }]);
  });

  it('ends at an error, tells of it alone, and drops a finish that follows it', () => {
    const { out, told } = run([[{ type: 'start' }, { type: 'error', error }], [finish]]);
    expect(out).toEqual([[{ type: 'start' }, { type: 'error', error }]]);
    expect(told.map(({ event }) => event.type)).toEqual(['error']);
  });

  it('for any batches: hands on every event up to the first terminal one, in order, and tells of that one once', () => {
    const event: fc.Arbitrary<StreamEvent> = fc.oneof(
      fc.constant<StreamEvent>({ type: 'start' }),
      fc.string({ maxLength: 3 }).map((text): StreamEvent => ({ type: 'text-delta', text })),
      fc.constant<StreamEvent>(finish),
      fc.constant<StreamEvent>({ type: 'error', error }),
    );
    fc.assert(
      fc.property(fc.array(fc.array(event, { maxLength: 4 }), { maxLength: 6 }), (batches) => {
        const { out, told } = run(batches);
        const all = batches.flat();
        const first = all.findIndex((e) => e.type === 'finish' || e.type === 'error');
        expect(out.flat()).toEqual(first === -1 ? all : all.slice(0, first + 1));
        expect(told.map(({ event }) => event)).toEqual(first === -1 ? [] : [all[first]]);
        // Told before the batch that carries it is handed on: it is the last batch out.
        if (first !== -1) expect(told[0]!.handedOn).toBe(out.length - 1);
      }),
    );
  });
});
