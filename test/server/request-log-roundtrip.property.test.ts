import fc from 'fast-check';
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/core/request-record.js';
import { LiveFeed } from '../../src/server/dashboard/live-feed.js';
import { requestAttributes } from '../../src/server/otel-export.js';
import { entryFromStored, formatJson, formatText, redactEntry } from '../../src/server/request-log.js';

/**
 * One record of a request: the pipeline's trace, completed by the HTTP layer, is what the log line,
 * the stored line, the dashboard's feed and the OpenTelemetry export all read. Whatever the record
 * holds (any field present or not, any text, any policy's note under any name), reading its stored
 * line gives it back, so no field is dropped between the writer and a reader (the task rule once
 * was, and so was a field the HTTP layer copied by hand).
 */

const text = fc.string({ maxLength: 20 });
const json = fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const target = fc.record(
  { backend: text, upstreamModel: text, outcome: fc.oneof(fc.constant('ok' as const), fc.integer({ min: 400, max: 599 })), latencyMs: fc.nat(60_000), error: text },
  { requiredKeys: ['backend', 'upstreamModel', 'outcome', 'latencyMs'] },
);
/** Policy names are the registry's, but the readers must not care: any name, prototype names included. */
const notes = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom('secrets', 'usage-cap', '__proto__', 'constructor'), fc.string({ minLength: 1, maxLength: 20 })), fc.string({ minLength: 1, maxLength: 40 })), {
    minLength: 1,
    maxLength: 4,
  })
  .map((pairs) => Object.fromEntries(pairs) as Record<string, string>);

/** An arbitrary for every field of the record: a field added to it does not compile until it is generated here. */
const fields: { [K in keyof Required<RequestLogEntry>]: fc.Arbitrary<RequestLogEntry[K]> } = {
  time: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  requestId: text,
  method: fc.constantFrom('GET', 'POST', 'HEAD'),
  path: text,
  endpoint: text,
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
  sessionMoved: text,
  notes,
  session: text,
  stream: fc.boolean(),
  aborted: fc.constant(true),
  error: text,
  // Written as text: redactEntry describes a cause before it is stored.
  cause: text,
  requestBody: json,
  responseBody: json,
};
const entry: fc.Arbitrary<RequestLogEntry> = fc.record(fields, { requiredKeys: ['time', 'method', 'path', 'status', 'latencyMs'] });

describe('the request record, read back', () => {
  it('gives every field of the entry its stored line was written from', () => {
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

  it("shows every policy's note in the log line, the dashboard's feed and the OpenTelemetry span", () => {
    fc.assert(
      fc.property(entry, notes, (base, noted) => {
        const written = { ...base, notes: noted };
        const redacted = redactEntry(written, []);
        const line = formatText(written, new Chalk({ level: 0 }));
        const feed = new LiveFeed();
        feed.record(written);
        const [shown] = feed.recent() as Array<{ notes?: Record<string, string> }>;
        const attributes = requestAttributes(redacted, () => undefined, []);
        for (const [name, note] of Object.entries(noted)) {
          expect(line).toContain(`note.${name}=`);
          expect(Object.hasOwn(shown!.notes!, name) && shown!.notes![name]).toBe(redacted.notes![name]);
          expect(attributes[`svc_router.note.${name}`]).toBe(redacted.notes![name]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('names the session in the log line, the dashboard\'s feed and the OpenTelemetry span', () => {
    fc.assert(
      fc.property(entry, fc.stringMatching(/^[\w-]{22}$/), (base, session) => {
        const written = { ...base, session };
        expect(formatText(written, new Chalk({ level: 0 }))).toContain(` session=${session}`);
        const feed = new LiveFeed();
        feed.record(written);
        expect((feed.recent()[0] as { session?: string }).session).toBe(session);
        expect(requestAttributes(redactEntry(written, []), () => undefined, [])['gen_ai.conversation.id']).toBe(session);
      }),
      { numRuns: 100 },
    );
  });
});
