/**
 * Gemini's Schema (https://ai.google.dev/api/caching#Schema: an OpenAPI 3.0 subset, types in upper
 * case, `nullable`, counts that proto JSON may write as strings) as the JSON Schema every other
 * upstream takes. A function's `parametersJsonSchema` and a `responseJsonSchema` are JSON Schema
 * already and are not passed through this.
 */
export function jsonSchemaFromGemini(schema: unknown): Record<string, unknown> {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return {};
  const out: Record<string, unknown> = {};
  let nullable = false;
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    switch (key) {
      case 'type':
        if (typeof value === 'string' && value !== 'TYPE_UNSPECIFIED') out.type = value.toLowerCase();
        break;
      case 'nullable':
        nullable = value === true;
        break;
      case 'properties':
        if (value && typeof value === 'object' && !Array.isArray(value)) {
          out.properties = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, inner]) => [name, jsonSchemaFromGemini(inner)]));
        }
        break;
      case 'items':
        out.items = jsonSchemaFromGemini(value);
        break;
      case 'anyOf':
        if (Array.isArray(value)) out.anyOf = value.map(jsonSchemaFromGemini);
        break;
      case 'example':
        out.examples = [value];
        break;
      // Gemini's own order of the output's keys: JSON Schema has no such keyword, and objects are unordered.
      case 'propertyOrdering':
        break;
      case 'maxItems':
      case 'minItems':
      case 'minProperties':
      case 'maxProperties':
      case 'minLength':
      case 'maxLength':
        // int64 fields, which proto JSON writes as strings.
        out[key] = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
        break;
      default:
        out[key] = value;
    }
  }
  // `nullable` lets the value be null as well as what the rest says.
  if (nullable) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.anyOf)) out.anyOf = [...(out.anyOf as unknown[]), { type: 'null' }];
  }
  return out;
}
