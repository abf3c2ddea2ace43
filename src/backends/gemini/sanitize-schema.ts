/**
 * JSON Schema (as clients send it for tools and structured output) to the subset of OpenAPI 3.0
 * that Gemini's `Schema` accepts in `functionDeclarations[].parameters` and `responseSchema`:
 * https://ai.google.dev/api/caching#Schema. Gemini refuses a request with a keyword outside that
 * subset, so everything else is translated or left out:
 *
 * - `$ref` is inlined from the root's `$defs` / `definitions` (a cycle stops at a plain object);
 * - `const` becomes a one-value `enum`; enum values become strings, `null` among them `nullable`;
 * - `type: [T, "null"]` and `anyOf: [S, {type: "null"}]` become `nullable`; `oneOf` becomes `anyOf`;
 * - `allOf` is merged into one schema;
 * - `additionalProperties`, `$schema`, `$id`, `$comment`, `examples`, `default`, `const`, `not`,
 *   `exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`, `uniqueItems`, `patternProperties`,
 *   `if`/`then`/`else` and the like are dropped;
 * - `format` is kept only where Gemini knows it (`enum`, `date-time`; `float`/`double`, `int32`/`int64`);
 * - `required` keeps only names that are properties.
 *
 * (`parametersJsonSchema` would take full JSON Schema, but only on newer models and API versions,
 * and never alongside `responseSchema`; `parameters` works everywhere.)
 */

type Schema = Record<string, unknown>;

const PASSED = ['title', 'description', 'pattern', 'minimum', 'maximum', 'minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties', 'propertyOrdering'] as const;
const FORMATS: Record<string, readonly string[]> = { string: ['enum', 'date-time'], number: ['float', 'double'], integer: ['int32', 'int64'] };
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
/** Deeper than this a schema is cut to a plain object: enough for any real tool, bounded for hostile input. */
const MAX_DEPTH = 32;

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The Gemini form of a JSON schema; `undefined` for an object schema with no properties (Gemini wants none sent). */
export function sanitizeToolParameters(schema: Schema): Schema | undefined {
  const converted = sanitizeSchema(schema);
  const properties = converted.properties;
  if ((converted.type ?? 'object') === 'object' && (!isObject(properties) || Object.keys(properties).length === 0)) return undefined;
  return converted;
}

export function sanitizeSchema(schema: Schema): Schema {
  const definitions = { ...(isObject(schema.definitions) ? schema.definitions : {}), ...(isObject(schema.$defs) ? schema.$defs : {}) };
  return convert(schema, definitions, new Set(), 0);
}

function convert(input: unknown, definitions: Schema, resolving: Set<string>, depth: number): Schema {
  if (input === true || !isObject(input)) return {};
  if (depth > MAX_DEPTH) return { type: 'object' };
  let schema = input;

  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    const target = name === undefined ? undefined : definitionNamed(definitions, name);
    // Unknown or recursive: a plain object is what Gemini can be told.
    if (name === undefined || !isObject(target) || resolving.has(name)) return withDescription({ type: 'object' }, schema);
    const { $ref: _ref, ...siblings } = schema;
    const inner = convert(target, definitions, new Set([...resolving, name]), depth + 1);
    return { ...inner, ...convert(siblings, definitions, resolving, depth + 1) };
  }
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    // Referenced parts are looked up first, so their properties join the others'.
    const parts = allOf.filter(isObject).map((part) => {
      const name = typeof part.$ref === 'string' ? refName(part.$ref) : undefined;
      const target = name === undefined || resolving.has(name) ? undefined : definitionNamed(definitions, name);
      return isObject(target) ? target : part;
    });
    schema = mergeAll([rest, ...parts]);
  }

  const out: Schema = {};
  let nullable = schema.nullable === true;

  // type: one name, or a list whose "null" means nullable.
  const types = (Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]).filter((type): type is string => typeof type === 'string');
  if (types.includes('null')) nullable = true;
  const concrete = types.filter((type) => TYPES.has(type));
  if (concrete.length === 1) out.type = concrete[0];
  else if (concrete.length > 1) out.anyOf = concrete.map((type) => ({ type }));

  for (const key of PASSED) if (schema[key] !== undefined) out[key] = schema[key];

  const values = schema.const !== undefined ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : undefined;
  if (values) {
    if (values.includes(null)) nullable = true;
    out.enum = values.filter((value) => value !== null).map((value) => (typeof value === 'string' ? value : JSON.stringify(value)));
    if (out.type === undefined) out.type = 'string';
  }
  if (typeof schema.format === 'string' && typeof out.type === 'string' && FORMATS[out.type]?.includes(schema.format)) out.format = schema.format;

  if (isObject(schema.properties)) {
    // Property names are the client's: fromEntries keeps one called `__proto__` as a property.
    const properties: Schema = Object.fromEntries(Object.entries(schema.properties).map(([name, value]) => [name, convert(value, definitions, resolving, depth + 1)]));
    out.properties = properties;
    if (out.type === undefined) out.type = 'object';
    if (Array.isArray(schema.required)) {
      const required = schema.required.filter((name): name is string => typeof name === 'string' && Object.hasOwn(properties, name));
      if (required.length) out.required = required;
    }
  }
  if (schema.items !== undefined) {
    const items = Array.isArray(schema.items) ? schema.items : [schema.items];
    const converted = items.map((item) => convert(item, definitions, resolving, depth + 1));
    out.items = converted.length === 1 ? converted[0] : { anyOf: converted };
    if (out.type === undefined) out.type = 'array';
  }

  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (alternatives) {
    const isNull = (option: unknown): boolean => isObject(option) && option.type === 'null';
    if (alternatives.some(isNull)) nullable = true;
    const options = alternatives.filter((option) => !isNull(option)).map((option) => convert(option, definitions, resolving, depth + 1));
    if (options.length === 1) Object.assign(out, options[0], out.description === undefined ? {} : { description: out.description });
    else if (options.length > 1) out.anyOf = options;
  }

  if (nullable) out.nullable = true;
  return out;
}

/** `#/$defs/Name` or `#/definitions/Name` (JSON pointer escapes undone). */
function refName(ref: string): string | undefined {
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
  return match ? match[1]!.replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

function withDescription(out: Schema, from: Schema): Schema {
  return typeof from.description === 'string' ? { ...out, description: from.description } : out;
}

/** allOf parts as one schema: properties and required lists joined, other keywords first one wins. */
function mergeAll(parts: Schema[]): Schema {
  const merged = new Map<string, unknown>();
  const properties = new Map<string, unknown>();
  const required: string[] = [];
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (key === 'properties' && isObject(value)) for (const [name, property] of Object.entries(value)) properties.set(name, property);
      else if (key === 'required' && Array.isArray(value)) required.push(...value.filter((name): name is string => typeof name === 'string' && !required.includes(name)));
      else if (!merged.has(key)) merged.set(key, value);
    }
  }
  if (properties.size) merged.set('properties', Object.fromEntries(properties));
  if (required.length) merged.set('required', required);
  return Object.fromEntries(merged);
}

/** A `$defs` entry by the name a `$ref` gives: the client's string, so own entries only. */
function definitionNamed(definitions: Schema, name: string): unknown {
  return Object.hasOwn(definitions, name) ? definitions[name] : undefined;
}
