import { describe, expect, it } from 'vitest';
import { sanitizeSchema, sanitizeToolParameters } from '../../../src/backends/gemini/sanitize-schema.js';

type Schema = Record<string, unknown>;

describe('gemini sanitizeSchema: JSON Schema to the Schema subset Gemini accepts', () => {
  const cases: Array<[string, Schema, Schema]> = [
    [
      'drops $schema, additionalProperties and other unsupported keywords',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: 'x',
        $comment: 'c',
        type: 'object',
        properties: { city: { type: 'string', examples: ['Paris'], default: 'Paris' } },
        required: ['city'],
        additionalProperties: false,
      },
      { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    ],
    ['const becomes a one-value enum', { const: 'fixed' }, { type: 'string', enum: ['fixed'] }],
    ['enum values become strings, null among them nullable', { type: 'integer', enum: [1, 2, null] }, { type: 'integer', enum: ['1', '2'], nullable: true }],
    ['type [T, "null"] becomes nullable T', { type: ['string', 'null'] }, { type: 'string', nullable: true }],
    ['several types become anyOf', { type: ['string', 'number'] }, { anyOf: [{ type: 'string' }, { type: 'number' }] }],
    ['anyOf with null becomes a nullable schema', { anyOf: [{ type: 'string', description: 'd' }, { type: 'null' }] }, { type: 'string', description: 'd', nullable: true }],
    ['oneOf becomes anyOf', { oneOf: [{ type: 'string' }, { type: 'integer' }] }, { anyOf: [{ type: 'string' }, { type: 'integer' }] }],
    [
      'allOf is merged, properties and required joined',
      { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'number' } }, required: ['b'] }] },
      { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a', 'b'] },
    ],
    [
      '$ref is inlined from $defs and definitions',
      {
        type: 'object',
        properties: { home: { $ref: '#/$defs/Place' }, work: { $ref: '#/definitions/Place', description: 'office' } },
        $defs: { Place: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } },
        definitions: { Place: { type: 'object', properties: { city: { type: 'string' } } } },
      },
      {
        type: 'object',
        properties: {
          home: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          work: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], description: 'office' },
        },
      },
    ],
    [
      'a recursive $ref stops at a plain object',
      { $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } }, $ref: '#/$defs/Node' },
      { type: 'object', properties: { next: { type: 'object' } } },
    ],
    ['an unknown $ref is a plain object', { $ref: '#/$defs/Missing', description: 'm' }, { type: 'object', description: 'm' }],
    [
      'format is kept only where Gemini knows it',
      { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, mail: { type: 'string', format: 'email' }, n: { type: 'number', format: 'double' } } },
      { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, mail: { type: 'string' }, n: { type: 'number', format: 'double' } } },
    ],
    [
      'numeric and length bounds pass; exclusive bounds, multipleOf and uniqueItems do not',
      { type: 'array', items: { type: 'integer', minimum: 1, maximum: 9, exclusiveMaximum: 10, multipleOf: 2 }, minItems: 1, maxItems: 3, uniqueItems: true },
      { type: 'array', items: { type: 'integer', minimum: 1, maximum: 9 }, minItems: 1, maxItems: 3 },
    ],
    ['tuple items become anyOf items', { type: 'array', items: [{ type: 'string' }, { type: 'number' }] }, { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } }],
    ['required keeps only declared properties', { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'ghost'] }, { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }],
    ['properties without a type imply an object', { properties: { a: { type: 'boolean' } } }, { type: 'object', properties: { a: { type: 'boolean' } } }],
    ['title, description and pattern pass', { type: 'string', title: 'T', description: 'D', pattern: '^a' }, { type: 'string', title: 'T', description: 'D', pattern: '^a' }],
    ['not and if/then/else are dropped', { type: 'string', not: { const: 'x' }, if: {}, then: {}, else: {} }, { type: 'string' }],
  ];

  it.each(cases)('%s', (_name, input, expected) => {
    expect(sanitizeSchema(input)).toEqual(expected);
  });

  it('leaves out the parameters of a tool that takes none', () => {
    expect(sanitizeToolParameters({ type: 'object', properties: {}, additionalProperties: false })).toBeUndefined();
    expect(sanitizeToolParameters({ type: 'object' })).toBeUndefined();
    expect(sanitizeToolParameters({ type: 'object', properties: { a: { type: 'string' } } })).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('cuts a schema nested past any real tool to a plain object', () => {
    let deep: Schema = { type: 'string' };
    for (let i = 0; i < 100; i++) deep = { type: 'object', properties: { x: deep } };
    const out = JSON.stringify(sanitizeSchema(deep));
    expect(out.length).toBeLessThan(2000);
  });
});

describe('gemini sanitizeSchema: names in a client schema are the client\'s', () => {
  it('keeps properties named __proto__ and constructor, also through allOf, as properties', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"number"}},"required":["__proto__"],' +
        '"allOf":[{"properties":{"__proto__":{"type":"string"}}}]}',
    ) as Schema;
    const out = sanitizeSchema(schema);
    const properties = out.properties as Schema;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(JSON.stringify(properties)).toBe('{"__proto__":{"type":"string"},"constructor":{"type":"number"}}');
    expect(out.required).toEqual(['__proto__']);
    const merged = sanitizeSchema(JSON.parse('{"allOf":[{"properties":{"__proto__":{"type":"string"}}},{"properties":{"b":{"type":"number"}}}]}') as Schema);
    expect(JSON.stringify(merged.properties)).toBe('{"__proto__":{"type":"string"},"b":{"type":"number"}}');
  });

  it('treats a $ref to a definition named after a prototype property, and not defined, as unresolvable', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(sanitizeSchema({ $ref: `#/$defs/${name}`, $defs: {} }), name).toEqual({ type: 'object' });
    }
  });
});
