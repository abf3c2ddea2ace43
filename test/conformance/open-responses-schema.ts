import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * The Open Responses specification (release 2026-04-24, vendored in test/fixtures/open-responses/)
 * as validators: the response object, and each streaming event by its `type`. OpenAPI 3.1 schemas
 * are JSON Schema 2020-12; `discriminator`, `example` and the `x-` keywords are annotations, so
 * they are ignored rather than refused.
 */
const DOCUMENT_URL = new URL('../fixtures/open-responses/openapi-2026-04-24.json', import.meta.url);
const ID = 'https://www.openresponses.org/openapi/2026-04-24/openapi.json';

interface OpenApiDocument {
  info: { version: string };
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
}

export const document = JSON.parse(readFileSync(DOCUMENT_URL, 'utf8')) as OpenApiDocument;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...document, $id: ID });

const validator = (name: string): ValidateFunction => {
  const validate = ajv.getSchema(`${ID}#/components/schemas/${name}`);
  if (!validate) throw new Error(`the Open Responses document has no schema ${name}`);
  return validate;
};

const responseResource = validator('ResponseResource');

/** `type` → the schema of that streaming event, from the 200 text/event-stream union of POST /responses. */
const eventSchemas = new Map<string, ValidateFunction>(
  (document.paths['/responses']!.post.responses['200'].content['text/event-stream'].schema.oneOf as Array<{ $ref: string }>).map(({ $ref }) => {
    const name = $ref.split('/').at(-1)!;
    const type = document.components.schemas[name].properties.type.enum[0] as string;
    return [type, validator(name)];
  }),
);

export const STREAM_EVENT_TYPES = [...eventSchemas.keys()];

const describe = (errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? error.keyword}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`);

/** What makes this body not a ResponseResource; empty when it is one. */
export function responseProblems(body: unknown): string[] {
  return responseResource(body) ? [] : describe(responseResource.errors);
}

/** What makes this event not the specification's event of its type; empty when it is one. */
export function eventProblems(event: { type?: unknown }): string[] {
  const validate = typeof event.type === 'string' ? eventSchemas.get(event.type) : undefined;
  if (!validate) return [`event type ${JSON.stringify(event.type)} is not a streaming event of the specification`];
  return validate(event) ? [] : describe(validate.errors);
}
