import { invalidRequest } from '../../core/errors.js';
import { inlineFile } from '../../core/file-data.js';
import { keepForwardBody } from '../../core/forwarded.js';
import type { CanonicalRequest, FilePart, ImagePart, Message, Part, SameFormatOnly, TextPart, ToolChoice, ToolSpec } from '../../core/request.js';
import type { Decoded } from '../client-format.js';
import {
  asArray,
  asObject,
  optionalBoolean,
  optionalInteger,
  optionalMetadata,
  optionalNumber,
  optionalString,
  optionalStringList,
  requiredString,
  wrongType,
  type Json,
} from '../shared/read-fields.js';
import { decodePromptCache, withBreakpoint } from '../shared/prompt-cache.js';
import { parseReasoningEffort } from '../shared/reasoning-effort.js';
import { readContextSize, readUserLocation, searchSpec } from '../shared/web-search-options.js';

export interface ChatOptions {
  includeUsage: boolean;
}

/** Decodes an OpenAI Chat Completions request body. */
export function decodeChatRequest(body: unknown): Decoded<ChatOptions> {
  const json = asObject(body, 'body');
  const model = requiredString(json, 'model');
  const rawMessages = json.messages;
  if (rawMessages === undefined || rawMessages === null) throw invalidRequest('messages: this field is required.', 'messages', 'missing_required_parameter');
  const list = asArray(rawMessages, 'messages');
  if (list.length === 0) throw invalidRequest('messages: must contain at least one message.', 'messages');
  const n = optionalInteger(json, 'n');
  if (n !== undefined && n !== 1) throw invalidRequest('n: only 1 choice per request is supported.', 'n');

  const system: TextPart[] = [];
  const messages: Message[] = [];
  list.forEach((raw, index) => {
    const message = decodeMessage(raw, `messages[${index}]`);
    // Leading system/developer messages are the system prompt; later ones stay where they are.
    if (message.role === 'system' && messages.length === 0) system.push(...(message.content as TextPart[]));
    else messages.push(message);
  });

  const kept: SameFormatOnly[] = [];
  const request: CanonicalRequest = { model, system, messages, tools: decodeTools(json, kept) };
  const toolChoice = decodeToolChoice(json.tool_choice);
  if (toolChoice) request.toolChoice = toolChoice;
  const parallel = optionalBoolean(json, 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  const maxTokens = optionalInteger(json, 'max_completion_tokens') ?? optionalInteger(json, 'max_tokens');
  if (maxTokens !== undefined) request.maxOutputTokens = maxTokens;
  const temperature = optionalNumber(json, 'temperature', 'temperature', { min: 0, max: 2 });
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(json, 'top_p', 'top_p', { min: 0, max: 1 });
  if (topP !== undefined) request.topP = topP;
  const stop = optionalStringList(json, 'stop');
  if (stop) request.stop = stop;
  const effort = parseReasoningEffort(optionalString(json, 'reasoning_effort'), 'reasoning_effort');
  if (effort) request.reasoningEffort = effort;
  decodeResponseFormat(json.response_format, request);
  decodeWebSearchOptions(json, request);
  decodeSampling(json, request, kept);
  const metadata = optionalMetadata(json, 'metadata');
  const user = optionalString(json, 'user');
  if (metadata || user) request.metadata = { ...metadata, ...(user ? { user_id: user } : {}) };
  if (kept.length) request.sameFormatOnly = kept;
  decodePromptCache(json, request);

  keepForwardBody(request, { format: 'chat', body: json });

  const stream = optionalBoolean(json, 'stream') ?? false;
  const streamOptions = json.stream_options === undefined || json.stream_options === null ? {} : asObject(json.stream_options, 'stream_options');
  const includeUsage = optionalBoolean(streamOptions, 'include_usage', 'stream_options.include_usage') ?? false;
  return { request, stream, options: { includeUsage } };
}

function decodeMessage(raw: unknown, path: string): Message {
  const message = asObject(raw, path);
  const role = requiredString(message, 'role', `${path}.role`);
  switch (role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: decodeContent(message.content, `${path}.content`, false) as TextPart[] };
    case 'user':
      return { role: 'user', content: decodeContent(message.content, `${path}.content`, true) };
    case 'assistant':
      return decodeAssistant(message, path);
    case 'tool': {
      const callId = requiredString(message, 'tool_call_id', `${path}.tool_call_id`);
      const decoded = decodeContent(message.content, `${path}.content`, true);
      const file = decoded.findIndex((part) => part.type === 'file');
      if (file !== -1) throw invalidRequest(`${path}.content[${file}]: a tool message cannot carry a file; put it in a user message.`, `${path}.content[${file}]`);
      const content = decoded as Array<TextPart | ImagePart>;
      return { role: 'tool', content: [{ type: 'tool-result', callId, content }] };
    }
    case 'function': {
      const name = requiredString(message, 'name', `${path}.name`);
      const content = decodeContent(message.content, `${path}.content`, false) as TextPart[];
      return { role: 'tool', content: [{ type: 'tool-result', callId: name, content }] };
    }
    default:
      throw invalidRequest(`${path}.role: expected one of system, developer, user, assistant, tool.`, `${path}.role`);
  }
}

function decodeAssistant(message: Json, path: string): Message {
  const content: Part[] = [];
  const reasoning = optionalString(message, 'reasoning_content', `${path}.reasoning_content`);
  if (reasoning) content.push({ type: 'reasoning', text: reasoning });
  if (message.content !== undefined && message.content !== null) {
    content.push(...decodeContent(message.content, `${path}.content`, false));
  }
  // A refusal the model gave on an earlier turn is what it said then: replayed as its text.
  const refusal = optionalString(message, 'refusal', `${path}.refusal`);
  if (refusal) content.push({ type: 'text', text: refusal });
  const calls = message.tool_calls;
  if (calls !== undefined && calls !== null) {
    asArray(calls, `${path}.tool_calls`).forEach((raw, index) => {
      const where = `${path}.tool_calls[${index}]`;
      const call = asObject(raw, where);
      const fn = asObject(call.function, `${where}.function`);
      content.push({
        type: 'tool-call',
        id: requiredString(call, 'id', `${where}.id`),
        name: requiredString(fn, 'name', `${where}.function.name`),
        arguments: optionalString(fn, 'arguments', `${where}.function.arguments`) ?? '{}',
      });
    });
  }
  return { role: 'assistant', content };
}

/** Content is a string or a list of parts; only user and tool messages may carry images. */
function decodeContent(raw: unknown, path: string, allowImages: boolean): Part[] {
  if (raw === undefined || raw === null) throw invalidRequest(`${path}: this field is required.`, path, 'missing_required_parameter');
  if (typeof raw === 'string') return [{ type: 'text', text: raw }];
  if (!Array.isArray(raw)) throw wrongType(path, 'a string or an array of content parts');
  return raw.map((item, index): Part => {
    const where = `${path}[${index}]`;
    const part = asObject(item, where);
    return withBreakpoint(decodePart(part, where, allowImages), part, where);
  });
}

function decodePart(part: Json, where: string, allowImages: boolean): Part {
  const type = requiredString(part, 'type', `${where}.type`);
  if (type === 'text') return { type: 'text', text: requiredString(part, 'text', `${where}.text`) };
  if (type === 'refusal') return { type: 'text', text: requiredString(part, 'refusal', `${where}.refusal`) };
  if (type === 'image_url' && allowImages) {
    const image = part.image_url;
    if (typeof image === 'string') return { type: 'image', url: image };
    const fields = asObject(image, `${where}.image_url`);
    const url = requiredString(fields, 'url', `${where}.image_url.url`);
    const detail = optionalString(fields, 'detail', `${where}.image_url.detail`);
    if (detail !== undefined && detail !== 'low' && detail !== 'high' && detail !== 'auto' && detail !== 'original') {
      throw invalidRequest(`${where}.image_url.detail: expected one of low, high, auto, original.`, `${where}.image_url.detail`);
    }
    return { type: 'image', url, ...(detail ? { detail } : {}) };
  }
  if (type === 'file' && allowImages) return decodeFile(part.file, `${where}.file`);
  throw invalidRequest(`${where}.type: content part type '${type}' is not supported here.`, `${where}.type`);
}

/**
 * A `file` part: inline `file_data` (a data: URL) or an uploaded `file_id`, with its `filename`.
 * https://platform.openai.com/docs/guides/pdf-files?api-mode=chat
 */
function decodeFile(raw: unknown, path: string): FilePart {
  const file = asObject(raw, path);
  const filename = optionalString(file, 'filename', `${path}.filename`);
  const data = optionalString(file, 'file_data', `${path}.file_data`);
  const id = optionalString(file, 'file_id', `${path}.file_id`);
  const named = filename ? { filename } : {};
  if (data) return { type: 'file', ...inlineFile(data, filename), ...named };
  if (id) return { type: 'file', source: { kind: 'file-id', id, provider: 'openai' }, ...named };
  throw invalidRequest(`${path}: a file part needs file_data or file_id.`, path, 'missing_required_parameter');
}

/**
 * `web_search_options`: Chat's offer of search, a request setting rather than a tool
 * (https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat). Every route runs it,
 * natively or through its search target (core/web-search.ts).
 */
function decodeWebSearchOptions(json: Json, request: CanonicalRequest): void {
  if (json.web_search_options === undefined || json.web_search_options === null) return;
  const options = asObject(json.web_search_options, 'web_search_options');
  request.webSearch = searchSpec('web_search_options', 'web_search_options', {
    contextSize: readContextSize(options, 'search_context_size', 'web_search_options.search_context_size'),
    userLocation: readUserLocation(options.user_location, 'web_search_options.user_location'),
  });
}

function decodeTools(json: Json, kept: SameFormatOnly[]): ToolSpec[] {
  const tools: ToolSpec[] = [];
  if (json.tools !== undefined && json.tools !== null) {
    asArray(json.tools, 'tools').forEach((raw, index) => {
      const tool = asObject(raw, `tools[${index}]`);
      if (tool.type !== 'function') {
        // Custom (free-form) tools and later kinds: an OpenAI Chat upstream gets them as sent;
        // elsewhere the model would not see the tool, so the request is refused.
        const type = typeof tool.type === 'string' ? tool.type : 'unknown';
        kept.push({ param: `tools[${index}]`, message: `tools of type '${type}' can be passed only to an OpenAI Chat upstream, and this model routes elsewhere; declare it as a function tool.`, refuse: true });
        return;
      }
      tools.push(decodeFunction(tool.function, `tools[${index}].function`));
    });
  }
  if (json.functions !== undefined && json.functions !== null) {
    asArray(json.functions, 'functions').forEach((raw, index) => tools.push(decodeFunction(raw, `functions[${index}]`)));
  }
  return tools;
}

function decodeFunction(raw: unknown, path: string): ToolSpec {
  const fn = asObject(raw, path);
  const spec: ToolSpec = {
    name: requiredString(fn, 'name', `${path}.name`),
    parameters: fn.parameters === undefined ? { type: 'object', properties: {} } : asObject(fn.parameters, `${path}.parameters`),
  };
  const description = optionalString(fn, 'description', `${path}.description`);
  if (description !== undefined) spec.description = description;
  return spec;
}

function decodeToolChoice(raw: unknown): ToolChoice | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw === 'auto' || raw === 'none' || raw === 'required') return raw;
  if (typeof raw === 'object' && !Array.isArray(raw)) {
    const fn = (raw as Json).function;
    if (fn && typeof fn === 'object' && typeof (fn as Json).name === 'string') return { name: (fn as Json).name as string };
  }
  throw invalidRequest("tool_choice: expected 'auto', 'none', 'required' or {type: 'function', function: {name}}.", 'tool_choice');
}

/**
 * `response_format`: `{type: 'json_schema', json_schema: {name, schema, strict}}` as the canonical
 * output schema, `{type: 'json_object'}` as JSON mode.
 * https://platform.openai.com/docs/api-reference/chat/create#chat-create-response_format
 */
function decodeResponseFormat(raw: unknown, request: CanonicalRequest): void {
  if (!raw || typeof raw !== 'object') return;
  const format = raw as Json;
  if (format.type === 'json_object') {
    request.jsonObject = true;
    return;
  }
  const spec = format.json_schema as Json | undefined;
  if (format.type !== 'json_schema' || !spec || typeof spec.schema !== 'object' || spec.schema === null) return;
  request.outputSchema = {
    name: typeof spec.name === 'string' ? spec.name : 'output',
    schema: spec.schema as Record<string, unknown>,
    ...(typeof spec.strict === 'boolean' ? { strict: spec.strict } : {}),
  };
}

/**
 * `seed` and the penalties are modelled (an upstream without them says so in warnings);
 * `logit_bias` and `logprobs` name tokens of OpenAI's own vocabulary or ask for a reply field the
 * canonical reply does not carry, so only an OpenAI Chat upstream honours them: elsewhere a warning.
 */
function decodeSampling(json: Json, request: CanonicalRequest, kept: SameFormatOnly[]): void {
  const seed = optionalInteger(json, 'seed', 'seed', Number.MIN_SAFE_INTEGER);
  if (seed !== undefined) request.seed = seed;
  const frequency = optionalNumber(json, 'frequency_penalty', 'frequency_penalty', { min: -2, max: 2 });
  if (frequency !== undefined) request.frequencyPenalty = frequency;
  const presence = optionalNumber(json, 'presence_penalty', 'presence_penalty', { min: -2, max: 2 });
  if (presence !== undefined) request.presencePenalty = presence;
  if (json.logit_bias !== undefined && json.logit_bias !== null && Object.keys(asObject(json.logit_bias, 'logit_bias')).length) {
    kept.push({ param: 'logit_bias', message: 'not sent: token ids are OpenAI-specific, and this model routes elsewhere.', refuse: false });
  }
  if (optionalBoolean(json, 'logprobs') === true || (json.top_logprobs !== undefined && json.top_logprobs !== null)) {
    kept.push({ param: 'logprobs', message: 'not returned: only an OpenAI Chat upstream gives log probabilities, and this model routes elsewhere.', refuse: false });
  }
}
