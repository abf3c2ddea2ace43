import { invalidRequest } from '../../core/errors.js';
import type { CanonicalRequest, ToolSpec } from '../../core/request.js';
import { keepForSameFormat } from '../../core/same-format-only.js';
import { asArray, asObject, optionalString, requiredString, type Json } from '../shared/read-fields.js';
import { searchSpec, unmodelledSearchFields } from '../shared/web-search-options.js';
import { jsonSchemaFromGemini } from './json-schema.js';

/**
 * Gemini's `tools` (https://ai.google.dev/api/caching#Tool) in canonical form: function
 * declarations as tools, Google Search as the client's offer of web search (run by the upstream's
 * own search, or the route's search target, as on every door). The other built-in tools (code
 * execution, URL context, Maps, file search, …) run only on a Gemini upstream, which gets them in
 * the forwarded body: elsewhere they are listed in `dropped_tools` and named in the warnings.
 */
export function decodeTools(raw: unknown, request: CanonicalRequest): string[] {
  const dropped: string[] = [];
  if (raw === undefined || raw === null) return dropped;
  asArray(raw, 'tools').forEach((item, index) => {
    const path = `tools[${index}]`;
    const tool = asObject(item, path);
    for (const [kind, value] of Object.entries(tool)) {
      if (value === undefined || value === null) continue;
      if (kind === 'functionDeclarations') {
        asArray(value, `${path}.functionDeclarations`).forEach((declaration, at) => request.tools.push(functionTool(asObject(declaration, `${path}.functionDeclarations[${at}]`), `${path}.functionDeclarations[${at}]`, request)));
      } else if (kind === 'googleSearch' || kind === 'googleSearchRetrieval') {
        const options = asObject(value, `${path}.${kind}`);
        request.webSearch = searchSpec(kind, `${path}.${kind}`, {});
        const unsent = unmodelledSearchFields(options, []);
        if (unsent.length) keepForSameFormat(request, `${path}.${kind}`, `${unsent.join(', ')} reach only a Gemini upstream's Google Search; this route searches without them.`, false);
      } else {
        if (!dropped.includes(kind)) dropped.push(kind);
        keepForSameFormat(request, `${path}.${kind}`, `Gemini's ${kind} tool runs only on a Gemini upstream; this route answers without it (see dropped_tools).`, false);
      }
    }
  });
  return dropped;
}

/** A function declaration: `parametersJsonSchema` is JSON Schema already, `parameters` Gemini's Schema. */
function functionTool(declaration: Json, path: string, request: CanonicalRequest): ToolSpec {
  const name = requiredString(declaration, 'name', `${path}.name`);
  const description = optionalString(declaration, 'description', `${path}.description`);
  const jsonSchema = declaration.parametersJsonSchema;
  const schema = jsonSchema !== undefined && jsonSchema !== null ? asObject(jsonSchema, `${path}.parametersJsonSchema`) : declaration.parameters !== undefined && declaration.parameters !== null ? jsonSchemaFromGemini(asObject(declaration.parameters, `${path}.parameters`)) : undefined;
  const unmodelled = Object.keys(declaration).filter((key) => !['name', 'description', 'parameters', 'parametersJsonSchema'].includes(key) && declaration[key] !== undefined && declaration[key] !== null);
  if (unmodelled.length) keepForSameFormat(request, `${path}.${unmodelled[0]}`, `${unmodelled.join(', ')} reach only a Gemini upstream; this route declares '${name}' without them.`, false);
  return { name, ...(description ? { description } : {}), parameters: schema ?? { type: 'object', properties: {} } };
}

const MODES = ['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED'];

/**
 * `toolConfig.functionCallingConfig` (https://ai.google.dev/api/caching#FunctionCallingConfig):
 * AUTO lets the model choose, ANY makes it call one (the one, when `allowedFunctionNames` names a
 * single function), NONE forbids calls. VALIDATED (a choice, with calls held to their schemas by
 * Gemini's constrained decoding) is AUTO elsewhere; a choice among several allowed functions is
 * held only by a Gemini upstream. Both are named in the warnings.
 */
export function decodeToolConfig(raw: unknown, request: CanonicalRequest): void {
  if (raw === undefined || raw === null) return;
  const config = asObject(raw, 'toolConfig');
  for (const key of Object.keys(config)) {
    if (key !== 'functionCallingConfig' && config[key] !== undefined && config[key] !== null) keepForSameFormat(request, `toolConfig.${key}`, `only a Gemini upstream reads ${key}; this route answers without it.`, false);
  }
  if (config.functionCallingConfig === undefined || config.functionCallingConfig === null) return;
  const calling = asObject(config.functionCallingConfig, 'toolConfig.functionCallingConfig');
  for (const key of Object.keys(calling)) {
    if (key === 'mode' || key === 'allowedFunctionNames' || calling[key] === undefined || calling[key] === null) continue;
    keepForSameFormat(request, `toolConfig.functionCallingConfig.${key}`, `only a Gemini upstream reads ${key}; this route answers without it.`, false);
  }
  const mode = (optionalString(calling, 'mode', 'toolConfig.functionCallingConfig.mode') ?? 'AUTO').toUpperCase();
  if (!MODES.includes(mode)) throw invalidRequest(`toolConfig.functionCallingConfig.mode: expected one of AUTO, ANY, NONE or VALIDATED, got '${mode.slice(0, 40)}'.`, 'toolConfig.functionCallingConfig.mode');
  const allowed = calling.allowedFunctionNames === undefined || calling.allowedFunctionNames === null ? undefined : asArray(calling.allowedFunctionNames, 'toolConfig.functionCallingConfig.allowedFunctionNames');
  const names = allowed?.map((name, index) => {
    if (typeof name !== 'string') throw invalidRequest(`toolConfig.functionCallingConfig.allowedFunctionNames[${index}]: expected a string.`, 'toolConfig.functionCallingConfig.allowedFunctionNames');
    const declared = request.tools.some((tool) => tool.name === name);
    if (!declared) throw invalidRequest(`toolConfig.functionCallingConfig.allowedFunctionNames[${index}]: '${name.slice(0, 64)}' is not a declared function.`, 'toolConfig.functionCallingConfig.allowedFunctionNames');
    return name;
  });
  if (mode === 'NONE') request.toolChoice = 'none';
  else if (mode === 'ANY') request.toolChoice = names?.length === 1 ? { name: names[0]! } : 'required';
  else request.toolChoice = 'auto';
  if (mode === 'VALIDATED') keepForSameFormat(request, 'toolConfig.functionCallingConfig.mode', "VALIDATED holds calls to their schemas by Gemini's own decoding; this route lets the model choose (AUTO).", false);
  if (names?.length && !(mode === 'ANY' && names.length === 1)) {
    keepForSameFormat(request, 'toolConfig.functionCallingConfig.allowedFunctionNames', `only a Gemini upstream keeps the model to ${names.join(', ')}; this route offers every declared function.`, false);
  }
}
