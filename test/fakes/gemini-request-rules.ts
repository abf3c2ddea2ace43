import { isObject } from './fake-server.js';

/**
 * What Google's Gemini API refuses in a generateContent body, in the words of its error messages:
 * unknown fields, malformed turns and parts, JSON Schema keywords outside its Schema subset
 * (https://ai.google.dev/api/caching#Schema), and, as Gemini 3 does, a current-turn function call
 * replayed without the thought signature it was issued with, or with one it never issued
 * (https://ai.google.dev/gemini-api/docs/thought-signatures).
 */

/** Google's documented stand-in for a call not made by Gemini, which passes validation. */
export const SKIP_VALIDATION = 'skip_thought_signature_validator';

const TOP_LEVEL = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'safetySettings', 'cachedContent']);
const GENERATION_CONFIG = new Set([
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'stopSequences',
  'candidateCount',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseModalities',
  'thinkingConfig',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
]);
const PART_DATA = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'];
const PART_FIELDS = new Set([...PART_DATA, 'thought', 'thoughtSignature', 'videoMetadata']);
/** Gemini's Schema: https://ai.google.dev/api/caching#Schema */
const SCHEMA_FIELDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
const SCHEMA_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL']);

/** What Gemini would refuse in a request body, in the words of its error message; undefined when it is fine. */
export function requestProblem(body: Record<string, any>, issued: string[]): string | undefined {
  const unknown = (name: string, at: string) => `Invalid JSON payload received. Unknown name "${name}" at '${at}': Cannot find field.`;
  for (const key of Object.keys(body)) if (!TOP_LEVEL.has(key)) return unknown(key, '');
  if (!Array.isArray(body.contents) || body.contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified';
  for (const [index, content] of body.contents.entries()) {
    const at = `contents[${index}]`;
    if (!isObject(content) || (content.role !== 'user' && content.role !== 'model')) return `Please use a valid role: user, model. (${at})`;
    if (!Array.isArray(content.parts) || content.parts.length === 0) return `* GenerateContentRequest.${at}.parts: contents.parts must not be empty.`;
    for (const [partIndex, part] of content.parts.entries()) {
      const problem = partProblem(part, `${at}.parts[${partIndex}]`, content.role);
      if (problem) return problem;
    }
  }
  if (body.systemInstruction !== undefined && !(isObject(body.systemInstruction) && Array.isArray(body.systemInstruction.parts))) return 'systemInstruction: parts required';
  for (const [index, tool] of (body.tools ?? []).entries()) {
    for (const [declIndex, declaration] of (tool.functionDeclarations ?? []).entries()) {
      const at = `tools[${index}].function_declarations[${declIndex}]`;
      if (typeof declaration.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(declaration.name)) return `* GenerateContentRequest.${at}.name: Invalid function name.`;
      if (declaration.parameters !== undefined) {
        const problem = schemaProblem(declaration.parameters, `${at}.parameters`);
        if (problem) return problem;
      }
    }
  }
  if (body.toolConfig !== undefined) {
    const mode = body.toolConfig?.functionCallingConfig?.mode;
    if (!['AUTO', 'ANY', 'NONE', 'VALIDATED'].includes(mode)) return `Invalid value at 'tool_config.function_calling_config.mode' (${String(mode)})`;
  }
  for (const key of Object.keys(body.generationConfig ?? {})) if (!GENERATION_CONFIG.has(key)) return unknown(key, 'generation_config');
  if (body.generationConfig?.responseSchema !== undefined) {
    const problem = schemaProblem(body.generationConfig.responseSchema, 'generation_config.response_schema');
    if (problem) return problem;
  }
  return signatureProblem(body.contents, issued);
}

function partProblem(part: unknown, at: string, role: string): string | undefined {
  if (!isObject(part)) return `${at}: a part must be an object`;
  for (const key of Object.keys(part)) if (!PART_FIELDS.has(key)) return `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`;
  const data = PART_DATA.filter((key) => part[key] !== undefined);
  if (data.length !== 1) return `* GenerateContentRequest.${at}.data: required oneof field 'data' must have one initialized field`;
  if (part.text !== undefined && typeof part.text !== 'string') return `${at}.text: must be a string`;
  if (part.inlineData !== undefined && !(typeof part.inlineData.mimeType === 'string' && typeof part.inlineData.data === 'string')) return `${at}.inline_data: mime_type and data required`;
  if (part.fileData !== undefined && !(typeof part.fileData.mimeType === 'string' && typeof part.fileData.fileUri === 'string')) return `${at}.file_data: mime_type and file_uri required`;
  if (part.functionCall !== undefined) {
    if (role !== 'model') return `${at}: function calls come from the model`;
    if (typeof part.functionCall.name !== 'string' || (part.functionCall.args !== undefined && !isObject(part.functionCall.args))) return `${at}.function_call: name and object args required`;
  }
  if (part.functionResponse !== undefined) {
    if (role !== 'user') return `${at}: function responses come from the user`;
    if (typeof part.functionResponse.name !== 'string' || !isObject(part.functionResponse.response)) return `${at}.function_response: name and object response required`;
  }
  if (part.thoughtSignature !== undefined && typeof part.thoughtSignature !== 'string') return `${at}.thought_signature: must be base64 text`;
  return undefined;
}

function schemaProblem(schema: unknown, at: string): string | undefined {
  if (!isObject(schema)) return `Invalid JSON payload received at '${at}': not a Schema`;
  for (const key of Object.keys(schema)) if (!SCHEMA_FIELDS.has(key)) return `Invalid JSON payload received. Unknown name "${key}" at '${at}': Cannot find field.`;
  if (schema.type !== undefined && !SCHEMA_TYPES.has(schema.type)) return `Invalid value at '${at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), ${JSON.stringify(schema.type)}`;
  if (schema.enum !== undefined && !(Array.isArray(schema.enum) && schema.enum.every((value: unknown) => typeof value === 'string'))) return `Invalid value at '${at}.enum': enum values must be strings`;
  for (const [name, value] of Object.entries(schema.properties ?? {})) {
    const problem = schemaProblem(value, `${at}.properties[${JSON.stringify(name)}].value`);
    if (problem) return problem;
  }
  if (schema.items !== undefined) return schemaProblem(schema.items, `${at}.items`);
  for (const [index, option] of (schema.anyOf ?? []).entries()) {
    const problem = schemaProblem(option, `${at}.any_of[${index}]`);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Gemini 3's rule (https://ai.google.dev/gemini-api/docs/thought-signatures): in the current turn,
 * after the last user content that is not only function responses, the first functionCall of each
 * model step must carry a signature, and a signature must be one Gemini issued.
 */
function signatureProblem(contents: any[], issued: string[]): string | undefined {
  let start = 0;
  contents.forEach((content, index) => {
    if (content.role === 'user' && content.parts.some((part: any) => part.functionResponse === undefined)) start = index + 1;
  });
  for (const [index, content] of contents.entries()) {
    for (const [partIndex, part] of content.parts.entries()) {
      if (part.thoughtSignature !== undefined && part.thoughtSignature !== SKIP_VALIDATION && !issued.includes(part.thoughtSignature)) {
        return `Corrupted thought signature. (contents[${index}].parts[${partIndex}])`;
      }
    }
    if (index < start || content.role !== 'model') continue;
    const first = content.parts.findIndex((part: any) => part.functionCall !== undefined);
    if (first !== -1 && content.parts[first].thoughtSignature === undefined) {
      return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${content.parts[first].functionCall.name}\` , position ${first + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
    }
  }
  return undefined;
}
