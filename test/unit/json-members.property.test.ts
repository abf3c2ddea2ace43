import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memberSpans, pathSpan, withMember } from '../../src/formats/shared/json-members.js';
import { checkObjectFrame, isNullAt, keyValueAt, scanKeys, stringCharsOf } from '../../src/backends/http/forward-tap.js';

/**
 * Forwarding edits an upstream's JSON text in place. Whatever the object (nested values, strings
 * holding quotes, braces and key-like text, escaped keys, duplicate keys, any spacing), setting a
 * member must read back as JSON.parse would see it set, and leave every other byte where it was.
 */

const key = fc.constantFrom('model', 'svc_meta', 'type', 'id', 'mod\\u0065l', 'x', '"model":');
const tricky = fc.string({ unit: fc.constantFrom('a', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '\n', 'é', '"model":'), maxLength: 12 });
const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), tricky, fc.dictionary(tricky, tricky, { maxKeys: 3 }));
const space = fc.constantFrom('', ' ', '\n  ', '\t');

/** An object's text written member by member, with chosen spacing and possibly repeated or escaped keys. */
const objectText = fc.record({ members: fc.array(fc.tuple(key, value), { maxLength: 6 }), before: space, after: space }).map(({ members, before, after }) => {
  const body = members.map(([name, item]) => `${before}${name.includes('\\') ? `"${name}"` : JSON.stringify(name)}${after}:${after}${JSON.stringify(item)}`).join(',');
  return `${before}{${body}${before}}${after}`;
});

describe('json-members', () => {
  it('withMember sets the member as JSON.parse reads it and keeps every other byte', () => {
    fc.assert(
      fc.property(objectText, fc.constantFrom('model', 'svc_meta'), fc.jsonValue({ maxDepth: 2 }), (text, name, item) => {
        const json = JSON.stringify(item) ?? 'null';
        const edited = withMember(text, name, json);
        expect(JSON.parse(edited)).toEqual({ ...JSON.parse(text), [name]: JSON.parse(json) });
        const spans = memberSpans(text, name);
        if (spans.length) {
          // Outside the spans, the text is untouched.
          let rebuilt = '';
          let from = 0;
          for (const span of spans) {
            rebuilt += text.slice(from, span.start) + json;
            from = span.end;
          }
          expect(edited).toBe(rebuilt + text.slice(from));
        } else {
          expect(edited.replace(`${text.trim() === '{}' || /^\s*\{\s*\}/.test(text) ? '' : ','}${JSON.stringify(name)}:${json}`, '')).toBe(text);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('pathSpan finds a nested value where JSON.parse does (the last of duplicates)', () => {
    fc.assert(
      fc.property(objectText, tricky, (inner, model) => {
        const text = `{"type":"message_start","message":${inner.replace(/^\s*\{/, `{"model":${JSON.stringify(model)},`).replace(/,(\s*)\}(\s*)$/, '$1}$2')}}`;
        const parsed = JSON.parse(text) as { message: Record<string, unknown> };
        const span = pathSpan(text, ['message', 'model']);
        expect(span).toBeDefined();
        expect(JSON.parse(text.slice(span!.start, span!.end))).toEqual(parsed.message.model);
      }),
      { numRuns: 300 },
    );
  });

  it('the tap finds keys only where they are keys, and measures their string values', () => {
    fc.assert(
      fc.property(tricky, tricky, fc.boolean(), (content, other, isNull) => {
        const text = JSON.stringify({ id: other, choices: [{ delta: { content }, finish_reason: isNull ? null : 'stop' }], note: `"finish_reason": "x" ${other}` });
        const finishes: boolean[] = [];
        scanKeys(text, ['finish_reason'], (_key, value) => finishes.push(!isNullAt(text, value)));
        expect(finishes).toEqual([!isNull]);
        expect(stringCharsOf(text, ['content'])).toBe(JSON.stringify(content).length - 2);
        expect(keyValueAt(text, 'usage')).toBe(-1);
        expect(() => checkObjectFrame('b', { data: text })).not.toThrow();
        expect(() => checkObjectFrame('b', { data: text.slice(0, -1) })).toThrow(/not valid JSON/);
      }),
      { numRuns: 300 },
    );
  });

  it('scanKeys meets every member of the wanted keys, at any depth and in order, as a walk of JSON.parse does', () => {
    const wanted = ['model', 'type', 'x', 'id'];
    /** Each wanted member as [key, its value's JSON text] in document order (what a parser sees). */
    const walk = (value: unknown, out: Array<[string, string]>): void => {
      if (Array.isArray(value)) for (const item of value) walk(item, out);
      else if (value && typeof value === 'object') {
        for (const [name, item] of Object.entries(value)) {
          if (wanted.includes(name)) out.push([name, JSON.stringify(item)]);
          walk(item, out);
        }
      }
    };
    const member = fc.tuple(fc.constantFrom(...wanted, 'other', '"type":', 'mod"el'), value);
    const object = fc.letrec((tie) => ({
      node: fc.array(fc.tuple(member, fc.option(tie('node'), { nil: undefined })), { maxLength: 4 }).map((pairs) => {
        const out: Record<string, unknown> = {};
        for (const [[name, item], child] of pairs) out[name] = child === undefined ? item : [item, child];
        return out;
      }),
    })).node;
    fc.assert(
      fc.property(object, space, fc.boolean(), (parsed, gap, escape) => {
        // Some keys written with escapes, as JSON allows: still the same keys to JSON.parse.
        const plain = JSON.stringify(parsed, null, gap.length ? gap.length : undefined);
        const text = escape ? plain.replaceAll('"type":', '"typ\\u0065":').replaceAll('"x":', '"\\u0078":') : plain;
        const expected: Array<[string, string]> = [];
        walk(parsed, expected);
        const found: Array<[string, string]> = [];
        scanKeys(text, wanted, (key, start, stringEnd) => found.push([wanted[key]!, stringEnd !== -1 ? text.slice(start, stringEnd) : '(not a string)']));
        // String values are found exactly (the tap counts output by them); others only where they start.
        expect(found).toEqual(expected.map(([name, json]) => [name, json.startsWith('"') ? json : '(not a string)']));
      }),
      { numRuns: 400 },
    );
  });
});
