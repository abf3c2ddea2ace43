import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../../src/core/errors.js';
import type { RequestTrace } from '../../src/core/request-record.js';
import type { SvcMeta } from '../../src/formats/client-format.js';
import type { StreamEvent } from '../../src/core/stream-events.js';
import { admitAll, splitAtFinish } from '../../src/policies/pipeline.js';
import type { Admission, Policy, PolicyInput } from '../../src/policies/policy.js';

/**
 * The pipeline between the doors, on its own: policies admit in order, a refusal releases what was
 * admitted before it (and only that), an admitted request is settled or released once, never both,
 * and a policy that answers at once costs no promise.
 */

type Step = { name: string; kind: 'pass' | 'admit' | 'refuse'; async: boolean };
const input = {} as PolicyInput;
const report = (): SvcMeta => ({ request_id: 'r', sku: 's', backend: 'b', upstream_model: 'm', attempts: 1, latency_ms: 1, usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } });

/** Policies that log every call, as the steps say. */
function policiesFor(steps: Step[], log: string[]): Policy[] {
  return steps.map(({ name, kind, async }) => ({
    name,
    admit() {
      log.push(`admit ${name}`);
      if (kind === 'refuse') {
        const error = new RouterError(429, 'rate_limit', `refused by ${name}`);
        if (async) return Promise.reject(error);
        throw error;
      }
      const admission: Admission | undefined =
        kind === 'admit'
          ? { headers: { [`x-${name}`]: name }, note: `noted by ${name}`, settle: () => void log.push(`settle ${name}`), release: () => void log.push(`release ${name}`) }
          : undefined;
      return async ? Promise.resolve(admission) : admission;
    },
  }));
}

const steps = fc.uniqueArray(
  fc.record({ name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), kind: fc.constantFrom<Step['kind']>('pass', 'admit', 'refuse'), async: fc.boolean() }),
  { selector: (step) => step.name, maxLength: 6 },
);

describe('admitAll', () => {
  it('admits in order, and a refusal releases exactly the admissions before it', async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (list) => {
        const log: string[] = [];
        const trace: RequestTrace = {};
        const refusing = list.findIndex((step) => step.kind === 'refuse');
        const ran = refusing === -1 ? list : list.slice(0, refusing + 1);
        const admittedBefore = ran.filter((step) => step.kind === 'admit').map((step) => step.name);
        let admissions;
        try {
          const pending = admitAll(policiesFor(list, log), input, trace);
          admissions = pending instanceof Promise ? await pending : pending;
        } catch (error) {
          expect(refusing).not.toBe(-1);
          expect((error as Error).message).toBe(`refused by ${list[refusing]!.name}`);
          expect(log).toEqual([...ran.map((step) => `admit ${step.name}`), ...admittedBefore.map((name) => `release ${name}`)]);
          return;
        }
        expect(refusing).toBe(-1);
        expect(log).toEqual(list.map((step) => `admit ${step.name}`));
        expect(admissions.headers).toEqual(admittedBefore.length ? Object.fromEntries(admittedBefore.map((name) => [`x-${name}`, name])) : undefined);
        expect(trace.notes).toEqual(admittedBefore.length ? Object.fromEntries(admittedBefore.map((name) => [name, `noted by ${name}`])) : undefined);
        // Settled once, whatever is called after.
        admissions.settle({ inputTokens: 1, outputTokens: 2 }, undefined, report());
        admissions.settle({ inputTokens: 1, outputTokens: 2 }, undefined, report());
        admissions.release();
        expect(log.slice(list.length)).toEqual(admittedBefore.map((name) => `settle ${name}`));
      }),
      { numRuns: 300 },
    );
  });

  it('answers at once, with no promise, when every policy does', () => {
    const log: string[] = [];
    const admitted = admitAll(policiesFor([{ name: 'a', kind: 'admit', async: false }, { name: 'b', kind: 'pass', async: false }], log), input);
    expect(admitted).not.toBeInstanceOf(Promise);
  });

  it('releases once, and never settles after', async () => {
    const log: string[] = [];
    const pending = admitAll(policiesFor([{ name: 'a', kind: 'admit', async: true }, { name: 'b', kind: 'admit', async: false }], log), input);
    const admissions = pending instanceof Promise ? await pending : pending;
    admissions.release();
    admissions.release();
    admissions.settle({ inputTokens: 1, outputTokens: 1 }, undefined, report());
    expect(log).toEqual(['admit a', 'admit b', 'release a', 'release b']);
  });

  it('knows when an admission reads the reply, and shows it each batch', async () => {
    const seen: string[] = [];
    const reader: Policy = { name: 'reader', admit: () => ({ inspect: (batch) => void seen.push(...batch.map((event) => event.type)) }) };
    const quiet: Policy = { name: 'quiet', admit: () => ({ release: () => undefined }) };
    expect((admitAll([quiet], input) as { inspects: boolean }).inspects).toBe(false);
    const admissions = admitAll([quiet, reader], input);
    if (admissions instanceof Promise) throw new Error('expected an answer at once');
    expect(admissions.inspects).toBe(true);
    admissions.inspect([{ type: 'text-start' }, { type: 'text-delta', text: 'hi' }]);
    expect(seen).toEqual(['text-start', 'text-delta']);
  });

  it('waits only for the admissions that hold a batch, and amends the finish in policy order', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const holder: Policy = {
      name: 'holder',
      admit: () => ({
        inspect: (batch) => (batch.some((event) => event.type === 'finish') ? released : undefined),
        amendFinish: (metadata) => ({ ...metadata, anthropic: { ...metadata?.anthropic, first: 1 } }),
      }),
    };
    const second: Policy = { name: 'second', admit: () => ({ inspect: () => undefined, amendFinish: (metadata) => ({ ...metadata, anthropic: { ...metadata?.anthropic, second: 2 } }) }) };
    const admissions = admitAll([holder, second], input);
    if (admissions instanceof Promise) throw new Error('expected an answer at once');
    expect(admissions.inspect([{ type: 'text-start' }])).toBeUndefined();
    const finish: StreamEvent = { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
    let settled = false;
    const held = admissions.inspect([finish]);
    expect(held).toBeInstanceOf(Promise);
    void (held as Promise<void>).then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    release();
    await held;
    expect(admissions.amended([{ type: 'text-end' }, finish])).toEqual([{ type: 'text-end' }, { ...finish, providerMetadata: { anthropic: { first: 1, second: 2 } } }]);
  });
});

describe('splitAtFinish', () => {
  const event = fc.constantFrom<StreamEvent>({ type: 'text-start' }, { type: 'text-delta', text: 'a' }, { type: 'text-end' }, { type: 'tool-call-end', id: 'c' });
  const finish: StreamEvent = { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };

  it('keeps every event in order, and starts a piece at the finish when events come before it', () => {
    fc.assert(
      fc.property(fc.array(event), fc.array(event), fc.boolean(), (before, after, withFinish) => {
        const batch = withFinish ? [...before, finish, ...after] : before;
        const pieces = splitAtFinish(batch);
        expect(pieces.flat()).toEqual(batch);
        expect(pieces.every((piece) => piece.length > 0) || batch.length === 0).toBe(true);
        if (withFinish && before.length) expect(pieces).toEqual([before, [finish, ...after]]);
        else expect(pieces).toEqual([batch]);
      }),
    );
  });
});
