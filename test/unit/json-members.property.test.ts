import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FirstMemberRewriter, memberSpans, pathSpan, replaceSpans, withMember, withMembers } from '../../src/core/json-members.js';

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

  it('withMembers, one walk for several members, gives the text of setting each in turn', () => {
    const anyText = fc.oneof(objectText, fc.string({ unit: fc.constantFrom('{', '}', '"', ':', ',', 'a', ' ', '\\'), maxLength: 16 }));
    fc.assert(
      fc.property(anyText, fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 }), fc.boolean(), (text, first, second, swapped) => {
        const a = JSON.stringify(first) ?? 'null';
        const b = JSON.stringify(second) ?? 'null';
        const [k1, k2] = swapped ? ['svc_meta', 'model'] : ['model', 'svc_meta'];
        expect(withMembers(text, [k1, k2], [a, b])).toBe(withMember(withMember(text, k1, a), k2, b));
      }),
      { numRuns: 1000 },
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
  it('FirstMemberRewriter rewrites each text of a series as a walk of that text alone would, however the texts begin alike or differ', () => {
    // Texts that share beginnings: a base object, then the same text cut anywhere and continued
    // with anything (another value, a longer number or literal, a broken tail), as a stream's frames are.
    const series = fc.tuple(objectText, fc.array(fc.tuple(fc.nat(), fc.oneof(objectText, tricky, fc.constantFrom('0', '1,"x":2}', 'l}', '"}', '}')), fc.boolean()), { maxLength: 8 }));
    fc.assert(
      fc.property(series, fc.jsonValue({ maxDepth: 1 }), ([first, nexts], item) => {
        const json = JSON.stringify(item) ?? 'null';
        const rewriter = new FirstMemberRewriter('model', json);
        let previous = first;
        for (const text of [first, ...nexts.map(([cut, tail, fresh]) => (fresh ? tail : previous.slice(0, cut % (previous.length + 1)) + tail))]) {
          expect(rewriter.rewrite(text), JSON.stringify(text)).toBe(replaceSpans(text, memberSpans(text, 'model', undefined, true), json));
          previous = text;
        }
      }),
      { numRuns: 2000 },
    );
  });
});
