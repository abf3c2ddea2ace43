import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { declarativeJsonSchema, renderJsonSchema, SCHEMA_FILE } from '../../../src/config/declarative/json-schema.js';
import { BACKEND_PLACEMENT, SETTINGS_PLACEMENT, type Placement } from '../../../src/config/declarative/placement.js';
import { DEFAULT_SETTINGS } from '../../../src/config/settings.js';

type JsonSchema = { properties?: Record<string, JsonSchema>; additionalProperties?: JsonSchema | boolean };

const schema = declarativeJsonSchema() as JsonSchema;
const properties = (node: JsonSchema | undefined): string[] => Object.keys(node?.properties ?? {}).sort();

/** The names a placement table puts in the file: fields as they are, secrets by their `*Env` field. */
const fileNames = (table: Record<string, Placement>): string[] =>
  [...new Set(Object.entries(table).flatMap(([field, placement]) => (placement === 'local' ? [] : typeof placement === 'object' ? [placement.env] : [field])))].sort();

describe('the published JSON Schema', () => {
  it('is committed as generated from the zod schema (run `npm run docs` after changing it)', () => {
    const committed = fs.readFileSync(new URL(`../../../${SCHEMA_FILE}`, import.meta.url), 'utf8');
    expect(committed).toBe(renderJsonSchema());
  });

  it('has every setting placed in the file, and nothing that is not a setting', () => {
    expect(properties(schema).filter((name) => name !== '$schema')).toEqual(fileNames(SETTINGS_PLACEMENT));
  });

  it("has every backend field, its key only by variable", () => {
    const backend = schema.properties!.backends!.additionalProperties as JsonSchema;
    expect(properties(backend)).toEqual(fileNames(BACKEND_PLACEMENT));
    expect(properties(backend)).not.toContain('apiKey');
  });

  it('has every setting that has a default placed, and each group with all its fields', () => {
    for (const field of Object.keys(DEFAULT_SETTINGS)) expect(Object.hasOwn(SETTINGS_PLACEMENT, field), `${field} is not placed`).toBe(true);
    for (const [field, placement] of Object.entries(SETTINGS_PLACEMENT)) {
      if (placement !== 'group') continue;
      const defaults = (DEFAULT_SETTINGS as unknown as Record<string, object>)[field]!;
      // Optional fields have no default; the compiler checks those (src/config/declarative/placement.ts).
      expect(properties(schema.properties![field]), `the fields of ${field}`).toEqual(expect.arrayContaining(Object.keys(defaults)));
    }
  });

  it('keeps secrets out: no field but an `*Env` name could hold one', () => {
    const names: string[] = [];
    const walk = (node: JsonSchema, path: string) => {
      for (const [name, child] of Object.entries(node.properties ?? {})) {
        names.push(`${path}${name}`);
        walk(child, `${path}${name}.`);
      }
      if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, `${path}*.`);
    };
    walk(schema, '');
    // server.tls.key is the path of the key file, not the key.
    expect(names.filter((name) => /(?:key|secret|token|password)$/i.test(name))).toEqual(['server.tls.key']);
  });
});
