import { z } from 'zod';
import { declarativeSchema } from './schema.js';

/** Where the published schema lives in the package (and in the repository). */
export const SCHEMA_FILE = 'schema/svc-router.schema.json';

/**
 * The JSON Schema (draft 2020-12) of the declarative file, for editors and other tools; generated
 * from the zod schema by `npm run docs`, and a test checks the committed file equals it. Some rules
 * only the router checks: a route's targets name existing backends, its name is routable, no
 * string holds a credential.
 */
export function declarativeJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(declarativeSchema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return { $schema, $id: 'svc-router.schema.json', ...rest };
}

export const renderJsonSchema = (): string => `${JSON.stringify(declarativeJsonSchema(), null, 2)}\n`;
