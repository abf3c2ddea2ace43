import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isJsonObject, walkJsonObject, WalkMemo } from '../../src/core/json-check.js';

/**
 * The same-format taps pass a frame to the client unparsed only if this check says it is a JSON
 * object, so the check must say so exactly when JSON.parse reads an object from the text: for any
 * text at all, for valid JSON with one piece changed, for JSON spaced and nested in every way, and
 * for every frame recorded from a real upstream.
 */

const WIRE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'wire');

/** What the check must say: JSON.parse succeeds and gives an object (not an array, a string, a number or null). */
function parsesToObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** JSON's pieces and the characters that break it: structure, escapes (good and bad), control characters, every kind of space. */
const piece = fc.constantFrom(
  '{', '}', '[', ']', '"', ':', ',', ' ', '\t', '\n', '\r', '\u000b', '\u0000', '\u001f', '\u00a0', '\ufeff',
  '0', '1', '9', '-', '+', '.', 'e', 'E', '01', '-0', '1.', '.5', '1e', '1e+', 'true', 'tru', 'false', 'null', 'nul', 'NaN', 'Infinity',
  '\\', '\\"', '\\\\', '\\/', '\\b', '\\n', '\\u', '\\u00e9', '\\u00G0', '\\x41', '\\\'', 'a', 'é', '😀', '\ud800', '"a":', '"a":1', '{"a":1}', '[1]',
);

/** One piece of JSON text inserted, removed or replaced at a position. */
const mutation = fc.record({ at: fc.nat(), remove: fc.nat(3), insert: fc.string({ unit: piece, maxLength: 3 }) });
const mutate = (text: string, { at, remove, insert }: { at: number; remove: number; insert: string }): string => {
  const where = at % (text.length + 1);
  return text.slice(0, where) + insert + text.slice(where + remove);
};

/** Any JSON value as text, compact or spaced. */
const jsonText = fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(undefined, 1, 2, '\t', ' \n ')).map(([value, space]) => JSON.stringify(value, null, space) ?? 'null');
const objectText = fc.tuple(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 5 }), fc.constantFrom(undefined, 2, '\t')).map(([value, space]) => JSON.stringify(value, null, space));

describe('isJsonObject says what JSON.parse says', () => {
  it('for any text made of JSON pieces', () => {
    fc.assert(
      fc.property(fc.string({ unit: piece, maxLength: 40 }), (text) => {
        expect(isJsonObject(text), JSON.stringify(text)).toBe(parsesToObject(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it('for any scalar in a value’s place, and for it with a character inserted, removed or replaced (numbers, literals, strings and their near misses)', () => {
    const char = fc.constantFrom('0', '1', '5', '9', '-', '+', '.', 'e', 'E', 'x', 't', 'r', 'u', 'f', 'l', 's', 'n', '"', '\\', 'F', ' ', ',', '}', ']');
    const scalar = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
      fc.integer().map(String),
      fc.constantFrom('true', 'false', 'null', '0', '-0', '10', '1e5', '1E-5', '-0.5e+10', '0.25'),
      fc.string({ maxLength: 4 }).map((text) => JSON.stringify(text)),
    );
    const nearMiss = fc.tuple(scalar, fc.nat(), fc.nat(1), fc.string({ unit: char, maxLength: 1 })).map(([text, at, remove, insert]) => mutate(text, { at, remove, insert }));
    fc.assert(
      fc.property(fc.oneof(nearMiss, fc.string({ unit: char, maxLength: 6 })), fc.constantFrom('{"a":%}', '{"a":[%]}', '{"a":[%,1]}', '{"a":{"b":%}}'), (value, shape) => {
        const text = shape.replace('%', value);
        expect(isJsonObject(text), text).toBe(parsesToObject(text));
      }),
      { numRuns: 10_000 },
    );
  });

  it('for any string of characters at all', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (text) => {
        expect(isJsonObject(text)).toBe(parsesToObject(text));
        expect(isJsonObject(`{"k":"${text}"}`), JSON.stringify(text)).toBe(parsesToObject(`{"k":"${text}"}`));
      }),
      { numRuns: 5_000 },
    );
  });

  it('for valid JSON of any kind, and for it with a piece inserted, removed or replaced', () => {
    fc.assert(
      fc.property(fc.oneof(objectText, jsonText), fc.array(mutation, { minLength: 1, maxLength: 2 }), (text, mutations) => {
        expect(isJsonObject(text)).toBe(parsesToObject(text));
        const changed = mutations.reduce(mutate, text);
        expect(isJsonObject(changed), JSON.stringify(changed)).toBe(parsesToObject(changed));
      }),
      { numRuns: 5_000 },
    );
  });

  it('for objects nested deeper than any stack it keeps, and after them', () => {
    for (const depth of [63, 64, 65, 1_000, 100_000]) {
      const deep = `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      expect(isJsonObject(deep)).toBe(true);
      expect(isJsonObject(`${deep.slice(0, -2)}}}`)).toBe(false);
      expect(isJsonObject(`{"a":${'{"b":'.repeat(depth)}1${'}'.repeat(depth)}}`)).toBe(true);
    }
    expect(isJsonObject('{"a":[1,{"b":[]}]}')).toBe(true);
  });

  it('for every frame recorded from a real upstream, and each of them cut short', () => {
    const frames = fs
      .readdirSync(WIRE)
      .flatMap((dir) => fs.readdirSync(path.join(WIRE, dir)).filter((file) => file.endsWith('.sse')).map((file) => path.join(WIRE, dir, file)))
      .flatMap((file) => fs.readFileSync(file, 'utf8').split('\n'))
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length));
    expect(frames.length).toBeGreaterThan(30);
    for (const frame of frames) {
      expect(isJsonObject(frame), frame).toBe(parsesToObject(frame));
      expect(isJsonObject(frame.slice(0, -1))).toBe(false);
    }
  });
});

describe('walkJsonObject meets the members a caller reads', () => {
  const wanted = ['type', 'text', 'x'];
  /** Each wanted member of a parsed value as [key, its value's JSON when a string, its depth], in document order. */
  const members = (value: unknown, depth: number, out: Array<[string, string, number]>): void => {
    if (Array.isArray(value)) for (const item of value) members(item, depth + 1, out);
    else if (value && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) {
        if (wanted.includes(name)) out.push([name, typeof item === 'string' ? JSON.stringify(item) : '(not a string)', depth]);
        members(item, depth + 1, out);
      }
    }
  };
  const tricky = fc.string({ unit: fc.constantFrom('a', '"', '\\', '{', '}', ':', ',', ' ', 'é', '"type":"x"', '\n'), maxLength: 10 });
  const member = fc.tuple(fc.constantFrom(...wanted, 'other', '"type":', 'typ"e'), fc.oneof(tricky, fc.jsonValue({ maxDepth: 2 })));
  const object = fc.letrec((tie) => ({
    node: fc.array(fc.tuple(member, fc.option(tie('node'), { nil: undefined })), { maxLength: 4 }).map((pairs) => {
      const out: Record<string, unknown> = {};
      for (const [[name, item], child] of pairs) out[name] = child === undefined ? item : [item, child];
      return out;
    }),
  })).node;

  it('every member of the wanted keys at any depth, in order, with its depth and string value, however its key is written', () => {
    fc.assert(
      fc.property(object, fc.constantFrom(undefined, 2, '\t'), fc.boolean(), (parsed, space, escape) => {
        const plain = JSON.stringify(parsed, null, space);
        // Keys written with escapes, as JSON allows, are still the same keys to JSON.parse.
        const text = escape ? plain.replaceAll('"type":', '"typ\\u0065":').replaceAll('"x":', '"\\u0078":') : plain;
        const expected: Array<[string, string, number]> = [];
        members(parsed, 1, expected);
        const found: Array<[string, string, number]> = [];
        const valid = walkJsonObject(text, wanted, (key, start, stringEnd, depth) => found.push([wanted[key]!, stringEnd === -1 ? '(not a string)' : text.slice(start, stringEnd), depth]));
        expect(valid).toBe(true);
        // A string value is found exactly as written (the taps measure output by it).
        expect(found.map(([name, json, depth]) => [name, json === '(not a string)' ? json : JSON.stringify(JSON.parse(json)), depth])).toEqual(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('the last of duplicate keys is the last one met, as JSON.parse keeps it', () => {
    const text = '{"type":"a","n":{"type":"inner"},"t\\u0079pe":"b"}';
    const top: string[] = [];
    expect(walkJsonObject(text, ['type'], (_key, start, end, depth) => depth === 1 && top.push(JSON.parse(text.slice(start, end))))).toBe(true);
    expect(top.at(-1)).toBe((JSON.parse(text) as { type: string }).type);
  });
});

describe('walkJsonObject with a memo of the last text tells what a walk of each text alone tells', () => {
  const keys = ['type', 'text', 'x', 'delta'];
  const walk = (text: string, memo?: WalkMemo) => {
    const told: number[][] = [];
    const valid = walkJsonObject(text, keys, (key, value, stringEnd, depth) => told.push([key, value, stringEnd, depth]), memo);
    return { valid, told };
  };
  const tail = fc.oneof(fc.string({ unit: piece, maxLength: 12 }), objectText, jsonText);

  it('for a series of texts each cut anywhere from the last and continued with anything', () => {
    fc.assert(
      fc.property(objectText, fc.array(fc.tuple(fc.nat(), tail, fc.nat(), fc.constantFrom(undefined, '"x":"', '"text":', '"delta":{"type":"t","text":"')), { maxLength: 10 }), jsonText, (first, steps, other) => {
        const memo = new WalkMemo();
        let previous = first;
        for (const [cut, rest, restCut, insert] of [[previous.length, '', 0, undefined] as const, ...steps]) {
          const text = cut === previous.length && rest === '' ? first : previous.slice(0, cut % (previous.length + 1)) + (insert ?? '') + rest.slice(restCut % (rest.length + 1));
          expect(walk(text, memo), JSON.stringify(text)).toEqual(walk(text));
          // Other streams' frames are walked in between, with the walker's own stack.
          walk(other);
          previous = text;
        }
      }),
      { numRuns: 3_000 },
    );
  });

  it('for the frames of a stream whose values change from frame to frame, nested and spaced in every way', () => {
    const value = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constantFrom(null, true, [], {}, [1, { x: 'y' }]));
    fc.assert(
      fc.property(fc.array(fc.tuple(value, value), { minLength: 1, maxLength: 12 }), fc.constantFrom(undefined, 2, '\t'), (values, space) => {
        const memo = new WalkMemo();
        for (const [text, x] of values) {
          const frame = JSON.stringify({ id: 'a', type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text, x }, usage: null }, null, space);
          expect(walk(frame, memo)).toEqual(walk(frame));
          expect(walk(frame.slice(0, -1), memo)).toEqual({ valid: false, told: walk(frame.slice(0, -1)).told });
        }
      }),
      { numRuns: 1_000 },
    );
  });

  it('for every stream recorded from a real upstream, frame after frame', () => {
    for (const dir of fs.readdirSync(WIRE)) {
      for (const file of fs.readdirSync(path.join(WIRE, dir)).filter((name) => name.endsWith('.sse'))) {
        const memo = new WalkMemo();
        const frames = fs.readFileSync(path.join(WIRE, dir, file), 'utf8').split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));
        for (const frame of frames) expect(walk(frame, memo), frame).toEqual(walk(frame));
      }
    }
  });
});

