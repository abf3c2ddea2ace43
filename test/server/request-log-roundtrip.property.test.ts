import fc from 'fast-check';
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { entryFromStored, formatJson, formatText, type RequestLogEntry } from '../../src/server/request-log.js';

/**
 * `svc-router logs` and the dashboard read back what the request store wrote. Whatever the entry
 * (any field present or not, any text), reading its stored line gives the same entry, so no field
 * the log knows is dropped between the writer and a reader (the task rule once was).
 */

const text = fc.string({ maxLength: 20 });
const json = fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const target = fc.record(
  { backend: text, upstreamModel: text, outcome: fc.oneof(fc.constant('ok' as const), fc.integer({ min: 400, max: 599 })), latencyMs: fc.nat(60_000), error: text },
  { requiredKeys: ['backend', 'upstreamModel', 'outcome', 'latencyMs'] },
);
const entry: fc.Arbitrary<RequestLogEntry> = fc.record(
  {
    time: fc.integer({ min: 0, max: 4_102_444_800_000 }),
    requestId: text,
    method: fc.constantFrom('GET', 'POST', 'HEAD'),
    path: text,
    status: fc.integer({ min: 100, max: 599 }),
    caller: text,
    format: text,
    model: text,
    rule: text,
    backend: text,
    upstreamModel: text,
    attempts: fc.nat(9),
    latencyMs: fc.nat(600_000),
    inputTokens: fc.nat(),
    outputTokens: fc.nat(),
    costNanoUsd: fc.nat({ max: 1e12 }),
    targets: fc.array(target, { maxLength: 3 }),
    stream: fc.constant(true),
    aborted: fc.constant(true),
    error: text,
    // Written as text: redactEntry describes a cause before it is stored.
    cause: text,
    requestBody: json,
    responseBody: json,
  },
  { requiredKeys: ['time', 'method', 'path', 'status', 'latencyMs'] },
);

describe('the request store, read back', () => {
  it('gives every field of the entry it was written from', () => {
    fc.assert(
      fc.property(entry, (written) => {
        const read = entryFromStored(JSON.parse(formatJson(written)));
        expect(read).toEqual(written);
        const colours = new Chalk({ level: 0 });
        expect(formatText(read, colours)).toBe(formatText(written, colours));
      }),
      { numRuns: 500 },
    );
  });
});
