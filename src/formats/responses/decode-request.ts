import { invalidRequest } from '../../core/errors.js';
import { inlineFile, mediaTypeFromName } from '../../core/file-data.js';
import { metadataString } from '../../core/provider-metadata.js';
import type { CanonicalRequest, FilePart, ImagePart, Message, Part, TextPart, ToolChoice } from '../../core/request.js';
import type { DecodeContext, Decoded } from '../client-format.js';
import {
  asArray,
  asObject,
  optionalBoolean,
  optionalInteger,
  optionalMetadata,
  optionalNumber,
  optionalString,
  requiredString,
  wrongType,
  type Json,
} from '../shared/read-fields.js';
import { parseReasoningEffort } from '../shared/reasoning-effort.js';
import { canonicalToolName, customToolArguments } from '../../core/tool-conventions.js';
import { decodeResponsesTools, type ClientTool } from './map-tools.js';
import { isSealedByUs, unsealReasoning } from './seal-reasoning.js';

/** Request fields the Responses body echoes back, and what encoding the reply needs. */
export interface ResponsesOptions {
  instructions: string | null;
  tools: unknown[];
  toolChoice: unknown;
  store: boolean;
  previousResponseId: string | null;
  reasoning: { effort: string | null; summary: string | null };
  text: unknown;
  truncation: string;
  metadata: Record<string, string>;
  serviceTier: string | null;
  user: string | null;
  promptCacheKey: string | null;
  /** Canonical tool name → the client's tool (for namespaces and custom tools). */
  toolsByName: Map<string, ClientTool>;
  /** `include: ["reasoning.encrypted_content"]`: return sealed reasoning the client can replay. */
  includeEncryptedReasoning: boolean;
}

/** Decodes an OpenAI Responses request body: `input` as a string or a list of items, as Codex sends it. */
export function decodeResponsesRequest(body: unknown, context: DecodeContext): Decoded<ResponsesOptions> {
  const json = asObject(body, 'body');
  const model = requiredString(json, 'model');
  if (json.input === undefined || json.input === null) throw invalidRequest('input: this field is required.', 'input', 'missing_required_parameter');
  const instructions = optionalString(json, 'instructions') ?? null;
  const system: TextPart[] = instructions ? [{ type: 'text', text: instructions }] : [];
  const rawTools = json.tools === undefined || json.tools === null ? [] : asArray(json.tools, 'tools');
  const tools = decodeResponsesTools(rawTools);
  const messages: Message[] = [];
  if (typeof json.input === 'string') {
    messages.push({ role: 'user', content: [{ type: 'text', text: json.input }] });
  } else {
    asArray(json.input, 'input').forEach((raw, index) => {
      const message = decodeItem(raw, `input[${index}]`, context);
      if (!message) return;
      // Leading system/developer items join the instructions; later ones stay in place.
      if (message.role === 'system' && messages.length === 0) system.push(...(message.content as TextPart[]));
      else appendMessage(messages, message);
    });
  }

  const request: CanonicalRequest = { model, system, messages, tools: tools.specs };
  const toolChoice = decodeToolChoice(json.tool_choice);
  if (toolChoice) request.toolChoice = toolChoice;
  const parallel = optionalBoolean(json, 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  const maxTokens = optionalInteger(json, 'max_output_tokens');
  if (maxTokens !== undefined) request.maxOutputTokens = maxTokens;
  const temperature = optionalNumber(json, 'temperature', 'temperature', { min: 0, max: 2 });
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(json, 'top_p', 'top_p', { min: 0, max: 1 });
  if (topP !== undefined) request.topP = topP;
  const reasoning = json.reasoning === undefined || json.reasoning === null ? {} : asObject(json.reasoning, 'reasoning');
  const effortText = optionalString(reasoning, 'effort', 'reasoning.effort');
  const effort = parseReasoningEffort(effortText, 'reasoning.effort');
  if (effort) request.reasoningEffort = effort;
  const outputSchema = decodeTextFormat(json.text);
  if (outputSchema) request.outputSchema = outputSchema;
  const metadata = optionalMetadata(json, 'metadata') ?? {};
  const user = optionalString(json, 'user') ?? null;
  if (Object.keys(metadata).length || user) request.metadata = { ...metadata, ...(user ? { user_id: user } : {}) };
  request.passthrough = {
    format: 'responses',
    // An upstream Responses API runs its own hosted tools, so those stay; previous_response_id
    // names a response the upstream never issued, and the replayed input carries the state anyway.
    body: { ...withoutKey(json, 'previous_response_id'), ...(Array.isArray(json.input) ? { input: forwardableInput(json.input, context) } : {}) },
  };
  const include = json.include === undefined || json.include === null ? [] : asArray(json.include, 'include');

  return {
    request,
    stream: optionalBoolean(json, 'stream') ?? false,
    droppedTools: tools.dropped,
    options: {
      instructions,
      tools: rawTools,
      toolChoice: json.tool_choice ?? 'auto',
      store: optionalBoolean(json, 'store') ?? true,
      previousResponseId: optionalString(json, 'previous_response_id') ?? null,
      reasoning: { effort: effortText ?? null, summary: optionalString(reasoning, 'summary', 'reasoning.summary') ?? null },
      text: json.text ?? { format: { type: 'text' } },
      truncation: optionalString(json, 'truncation') ?? 'disabled',
      metadata,
      serviceTier: optionalString(json, 'service_tier') ?? null,
      user,
      promptCacheKey: optionalString(json, 'prompt_cache_key') ?? null,
      toolsByName: tools.byCanonicalName,
      includeEncryptedReasoning: include.includes('reasoning.encrypted_content'),
    },
  };
}

/** Consecutive items of one role (an assistant's reasoning, text and calls) form one message. */
function appendMessage(messages: Message[], message: Message): void {
  const last = messages.at(-1);
  if (last && last.role === message.role && message.role !== 'system') last.content.push(...message.content);
  else messages.push(message);
}

function decodeItem(raw: unknown, path: string, context: DecodeContext): Message | undefined {
  const item = asObject(raw, path);
  const type = optionalString(item, 'type', `${path}.type`) ?? 'message';
  switch (type) {
    case 'message': {
      const role = requiredString(item, 'role', `${path}.role`);
      if (role === 'system' || role === 'developer') return { role: 'system', content: decodeContent(item.content, `${path}.content`).filter(isText) };
      if (role === 'user' || role === 'assistant') return { role, content: decodeContent(item.content, `${path}.content`) };
      throw invalidRequest(`${path}.role: expected one of user, assistant, system, developer.`, `${path}.role`);
    }
    case 'function_call': {
      const name = requiredString(item, 'name', `${path}.name`);
      const namespace = optionalString(item, 'namespace', `${path}.namespace`);
      return toolCall(requiredString(item, 'call_id', `${path}.call_id`), canonicalToolName(name, namespace), optionalString(item, 'arguments', `${path}.arguments`) ?? '{}');
    }
    case 'custom_tool_call': {
      const name = requiredString(item, 'name', `${path}.name`);
      const namespace = optionalString(item, 'namespace', `${path}.namespace`);
      return toolCall(requiredString(item, 'call_id', `${path}.call_id`), canonicalToolName(name, namespace), customToolArguments(optionalString(item, 'input', `${path}.input`) ?? ''));
    }
    case 'local_shell_call': {
      const callId = optionalString(item, 'call_id', `${path}.call_id`) ?? requiredString(item, 'id', `${path}.id`);
      return toolCall(callId, 'local_shell', JSON.stringify(item.action ?? {}));
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'local_shell_call_output': {
      const callId = optionalString(item, 'call_id', `${path}.call_id`) ?? requiredString(item, 'id', `${path}.id`);
      return { role: 'tool', content: [{ type: 'tool-result', callId, content: decodeOutput(item.output, `${path}.output`) }] };
    }
    case 'reasoning':
      return decodeReasoning(item, path, context);
    default:
      // Other items replayed from earlier outputs (web search calls, item references, …) carry
      // nothing a backend here consumes; accepted and left out of the upstream request.
      return undefined;
  }
}

const toolCall = (id: string, name: string, args: string): Message => ({ role: 'assistant', content: [{ type: 'tool-call', id, name, arguments: args }] });

/** A reasoning item: our sealed payload restores what the upstream signed; a summary alone is kept as text. */
function decodeReasoning(item: Json, path: string, context: DecodeContext): Message | undefined {
  const sealed = item.encrypted_content;
  if (isSealedByUs(sealed)) return { role: 'assistant', content: [unsealReasoning(sealed, context.secret, `${path}.encrypted_content`)] };
  const summary = Array.isArray(item.summary) ? item.summary.map((part) => (typeof (part as Json)?.text === 'string' ? ((part as Json).text as string) : '')).join('\n') : '';
  // Encrypted content we did not seal is OpenAI's own (a client that talks to OpenAI through us).
  const id = optionalString(item, 'id', `${path}.id`);
  const opaque = typeof sealed === 'string' && sealed ? { providerMetadata: { openai: { encryptedContent: sealed, ...(id ? { itemId: id } : {}) } } } : {};
  if (!summary && !opaque.providerMetadata) return undefined;
  return { role: 'assistant', content: [{ type: 'reasoning', text: summary, ...opaque }] };
}

/**
 * The input as an upstream Responses API may see it: reasoning we sealed is opened back into the
 * upstream's own encrypted content, or left out when it came from another kind of upstream.
 */
function forwardableInput(input: unknown[], context: DecodeContext): unknown[] {
  return input.flatMap((raw, index) => {
    const item = raw as Json | null;
    if (!item || item.type !== 'reasoning' || !isSealedByUs(item.encrypted_content)) return [raw];
    const part = unsealReasoning(item.encrypted_content, context.secret, `input[${index}].encrypted_content`);
    const encrypted = metadataString(part.providerMetadata, 'openai', 'encryptedContent');
    return encrypted ? [{ ...item, encrypted_content: encrypted }] : [];
  });
}

function withoutKey(json: Json, key: string): Json {
  const { [key]: _dropped, ...rest } = json;
  return rest;
}

const isText = (part: Part): part is TextPart => part.type === 'text';

function decodeContent(raw: unknown, path: string): Part[] {
  if (raw === undefined || raw === null) throw invalidRequest(`${path}: this field is required.`, path, 'missing_required_parameter');
  if (typeof raw === 'string') return [{ type: 'text', text: raw }];
  if (!Array.isArray(raw)) throw wrongType(path, 'a string or an array of content parts');
  const parts: Part[] = [];
  raw.forEach((item, index) => {
    const where = `${path}[${index}]`;
    const part = asObject(item, where);
    const type = requiredString(part, 'type', `${where}.type`);
    if (type === 'input_text' || type === 'output_text' || type === 'text') parts.push({ type: 'text', text: requiredString(part, 'text', `${where}.text`) });
    else if (type === 'refusal') parts.push({ type: 'text', text: requiredString(part, 'refusal', `${where}.refusal`) });
    else if (type === 'input_image') {
      const url = optionalString(part, 'image_url', `${where}.image_url`);
      if (url) parts.push({ type: 'image', url });
    } else if (type === 'input_file') {
      parts.push(decodeInputFile(part, where));
    }
  });
  return parts;
}

/**
 * An `input_file` part: inline `file_data` (a data: URL), a `file_url`, or an uploaded `file_id`
 * (https://platform.openai.com/docs/guides/pdf-files?api-mode=responses). Nothing is fetched or stored here.
 */
function decodeInputFile(part: Json, path: string): FilePart {
  const filename = optionalString(part, 'filename', `${path}.filename`);
  const named = filename ? { filename } : {};
  const data = optionalString(part, 'file_data', `${path}.file_data`);
  if (data) return { type: 'file', ...inlineFile(data, filename), ...named };
  const url = optionalString(part, 'file_url', `${path}.file_url`);
  if (url) {
    const mediaType = mediaTypeFromName(filename) ?? mediaTypeFromName(url.split(/[?#]/)[0]);
    return { type: 'file', source: { kind: 'url', url }, ...(mediaType ? { mediaType } : {}), ...named };
  }
  const id = optionalString(part, 'file_id', `${path}.file_id`);
  if (id) return { type: 'file', source: { kind: 'file-id', id, provider: 'openai' }, ...named };
  throw invalidRequest(`${path}: an input_file needs file_data, file_url or file_id.`, path, 'missing_required_parameter');
}

/** A tool's output: a string, or content parts (text and images). */
function decodeOutput(raw: unknown, path: string): Array<TextPart | ImagePart> {
  if (typeof raw === 'string') return [{ type: 'text', text: raw }];
  if (raw === undefined || raw === null) return [];
  const parts = decodeContent(raw, path);
  const file = parts.findIndex((part) => part.type === 'file');
  // A tool result carries text and images only: a file there would be lost, so it is refused.
  if (file !== -1) throw invalidRequest(`${path}[${file}]: a file in a tool output cannot be passed on; send it in a user message.`, `${path}[${file}]`);
  return parts.filter((part): part is TextPart | ImagePart => part.type === 'text' || part.type === 'image');
}

function decodeToolChoice(raw: unknown): ToolChoice | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw === 'auto' || raw === 'none' || raw === 'required') return raw;
  if (typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const choice = raw as Json;
  if ((choice.type === 'function' || choice.type === 'custom') && typeof choice.name === 'string') {
    return { name: canonicalToolName(choice.name, typeof choice.namespace === 'string' ? choice.namespace : undefined) };
  }
  return undefined; // built-in tool choices: nothing to force upstream
}

/** `text.format` of type json_schema becomes the canonical output schema. */
function decodeTextFormat(raw: unknown): CanonicalRequest['outputSchema'] {
  if (!raw || typeof raw !== 'object') return undefined;
  const format = (raw as Json).format as Json | undefined;
  if (!format || format.type !== 'json_schema' || !format.schema || typeof format.schema !== 'object') return undefined;
  return {
    name: typeof format.name === 'string' ? format.name : 'output',
    schema: format.schema as Record<string, unknown>,
    ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
  };
}
