import { invalidRequest } from '../../core/errors.js';
import { inlineFile, mediaTypeFromName } from '../../core/file-data.js';
import { keepForwardBody } from '../../core/forwarded.js';
import { metadataString } from '../../core/provider-metadata.js';
import type { CanonicalRequest, FilePart, ForeignReasoningBlock, ImagePart, Message, Part, SameFormatOnly, TextPart } from '../../core/request.js';
import type { WebSearchPart } from '../../core/web-search.js';
import { warn } from '../../core/warnings.js';
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
import { decodePromptCache, withBreakpoint } from '../shared/prompt-cache.js';
import { parseReasoningEffort } from '../shared/reasoning-effort.js';
import { canonicalToolName, customToolArguments } from '../../core/tool-conventions.js';
import { decodeResponsesTools, type ClientTool } from './map-tools.js';
import { decodeToolSearchCall, decodeToolSearchOutput, holdBackDeferredTools } from './tool-search-items.js';
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
  /** `include: ["web_search_call.action.sources"]`: a search's item lists the pages it found. */
  includeSearchSources: boolean;
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
  const kept: SameFormatOnly[] = [];
  if (typeof json.input === 'string') {
    messages.push({ role: 'user', content: [{ type: 'text', text: json.input }] });
  } else {
    asArray(json.input, 'input').forEach((raw, index) => {
      const message = decodeItem(raw, `input[${index}]`, context, kept);
      if (!message) return;
      // Leading system/developer items join the instructions; later ones stay in place.
      if (message.role === 'system' && messages.length === 0) system.push(...(message.content as TextPart[]));
      else appendMessage(messages, message);
    });
  }

  const request: CanonicalRequest = { model, system, messages, tools: tools.specs };
  kept.push(...tools.sameFormatOnly);
  holdBackDeferredTools(request, tools.byCanonicalName, kept);
  if (tools.webSearch) request.webSearch = tools.webSearch;
  if (tools.webSearchUnsent) {
    const { param, fields } = tools.webSearchUnsent;
    kept.push({ param, message: `web search ${fields.join(', ')} not applied: only an OpenAI Responses upstream takes them; the search runs without.`, refuse: false });
  }
  if (kept.length) request.sameFormatOnly = kept;
  decodeToolChoice(json.tool_choice, request);
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
  // Readable summaries of the reasoning (`auto`, `concise`, `detailed`), asked with or without an effort: every upstream that can give them is asked.
  const summary = optionalString(reasoning, 'summary', 'reasoning.summary');
  if (summary !== undefined && summary !== 'none') request.reasoningDisplay = 'summarized';
  decodeTextFormat(json.text, request);
  decodePromptCache(json, request);
  const metadata = optionalMetadata(json, 'metadata') ?? {};
  const user = optionalString(json, 'user') ?? null;
  if (Object.keys(metadata).length || user) request.metadata = { ...metadata, ...(user ? { user_id: user } : {}) };
  const foreign: ForeignReasoningBlock[] = [];
  keepForwardBody(request, {
    format: 'responses',
    // An upstream Responses API runs its own hosted tools, so those stay; previous_response_id
    // names a response the upstream never issued, and the replayed input carries the state anyway.
    body: { ...withoutKey(json, 'previous_response_id'), ...(Array.isArray(json.input) ? { input: forwardableInput(json.input, context, foreign) } : {}) },
    ...(foreign.length ? { foreignReasoning: foreign } : {}),
  });
  const previousResponseId = optionalString(json, 'previous_response_id');
  if (previousResponseId) {
    warn(request, `previous_response_id '${previousResponseId}' not used: svc-router stores no responses, so the model sees only the items in this request's input; send the whole conversation (store: false).`);
  }
  const include = json.include === undefined || json.include === null ? [] : asArray(json.include, 'include');

  return {
    request,
    stream: optionalBoolean(json, 'stream') ?? false,
    droppedTools: tools.dropped,
    options: {
      instructions,
      tools: rawTools,
      toolChoice: json.tool_choice ?? 'auto',
      // Nothing is stored here, so the response claims `store: true` only when the client asked.
      store: optionalBoolean(json, 'store') ?? false,
      previousResponseId: previousResponseId ?? null,
      reasoning: { effort: effortText ?? null, summary: optionalString(reasoning, 'summary', 'reasoning.summary') ?? null },
      text: json.text ?? { format: { type: 'text' } },
      truncation: optionalString(json, 'truncation') ?? 'disabled',
      metadata,
      serviceTier: optionalString(json, 'service_tier') ?? null,
      user,
      promptCacheKey: optionalString(json, 'prompt_cache_key') ?? null,
      toolsByName: tools.byCanonicalName,
      includeEncryptedReasoning: include.includes('reasoning.encrypted_content'),
      includeSearchSources: include.includes('web_search_call.action.sources'),
    },
  };
}

/** Consecutive items of one role (an assistant's reasoning, text and calls) form one message. */
function appendMessage(messages: Message[], message: Message): void {
  const last = messages.at(-1);
  if (last && last.role === message.role && message.role !== 'system') last.content.push(...message.content);
  else messages.push(message);
}

function decodeItem(raw: unknown, path: string, context: DecodeContext, kept: SameFormatOnly[]): Message | undefined {
  const item = asObject(raw, path);
  const type = optionalString(item, 'type', `${path}.type`) ?? 'message';
  switch (type) {
    case 'message': {
      const role = requiredString(item, 'role', `${path}.role`);
      if (role === 'system' || role === 'developer') {
        const content = decodeContent(item.content, `${path}.content`, kept);
        content.forEach((part, index) => {
          if (!isText(part)) keepOnly(kept, `${path}.content[${index}]`, `an image or file in a ${role} message can be passed only to an OpenAI Responses upstream, and this model routes elsewhere; send it in a user message.`);
        });
        return { role: 'system', content: content.filter(isText) };
      }
      if (role === 'user' || role === 'assistant') return { role, content: decodeContent(item.content, `${path}.content`, kept) };
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
      return { role: 'tool', content: [{ type: 'tool-result', callId, content: decodeOutput(item.output, `${path}.output`, kept) }] };
    }
    case 'tool_search_call':
      return decodeToolSearchCall(item, path, kept);
    case 'tool_search_output':
      return decodeToolSearchOutput(item, path, kept);
    case 'reasoning':
      return decodeReasoning(item, path, context);
    case 'web_search_call':
      return { role: 'assistant', content: [replayedSearch(item, path)] };
    case 'item_reference': {
      // An earlier item by id, for the server to look up (what `store: true` clients such as the
      // AI SDK send). svc-router keeps no state, and the ids it issued name nothing upstream.
      const id = optionalString(item, 'id', `${path}.id`) ?? '';
      throw invalidRequest(
        `${path}: item_reference '${id}' cannot be resolved: svc-router stores no responses or items. Send earlier items in full instead (with the AI SDK, set store: false).`,
        path,
      );
    }
    case 'compaction_trigger':
    case 'compaction':
      // Remote compaction (Codex's remote_compaction_v2): the upstream writes an opaque item only
      // it can read back. POST /v1/responses/compact compacts on every route instead.
      keepOnly(kept, path, `'${type}' items (remote compaction) can be passed only to an OpenAI Responses upstream, and this model routes elsewhere; compact with POST /v1/responses/compact, which every route serves, or let the client compact locally.`);
      return undefined;
    default:
      // Items replayed from hosted tools (web_search_call, computer_call, mcp_call, …) and types
      // not modelled here: an OpenAI Responses upstream gets them in the forwarded body; any other
      // route refuses the request rather than leave them out.
      keepOnly(kept, path, `a replayed '${type}' item can be passed only to an OpenAI Responses upstream, and this model routes elsewhere; leave it out or send what it holds as a message.`);
      return undefined;
  }
}

/** A replayed web_search_call: its query and the sources it listed (urls only, as OpenAI gives them). */
function replayedSearch(item: Json, path: string): WebSearchPart {
  const action = item.action === undefined || item.action === null ? {} : asObject(item.action, `${path}.action`);
  const queries = Array.isArray(action.queries) ? action.queries.filter((query): query is string => typeof query === 'string') : [];
  const query = optionalString(action, 'query', `${path}.action.query`) ?? queries.join('; ');
  const sources = Array.isArray(action.sources) ? action.sources : [];
  const results = sources.flatMap((source) => (source && typeof (source as Json).url === 'string' ? [{ url: (source as Json).url as string }] : []));
  return { type: 'web-search', id: optionalString(item, 'id', `${path}.id`) ?? `ws_${path}`, query, results, ...(item.status === 'failed' ? { errorCode: 'unavailable' } : {}) };
}

const keepOnly = (kept: SameFormatOnly[], param: string, message: string, refuse = true): void => {
  kept.push({ param, message, refuse });
};

const toolCall = (id: string, name: string, args: string): Message => ({ role: 'assistant', content: [{ type: 'tool-call', id, name, arguments: args }] });

/** A reasoning item: our sealed payload restores what the upstream signed; a summary alone is kept as text. */
function decodeReasoning(item: Json, path: string, context: DecodeContext): Message | undefined {
  const sealed = item.encrypted_content;
  if (isSealedByUs(sealed)) return { role: 'assistant', content: [unsealReasoning(sealed, context.secret, `${path}.encrypted_content`)] };
  const summary = Array.isArray(item.summary) ? item.summary.map((part) => (typeof (part as Json)?.text === 'string' ? ((part as Json).text as string) : '')).join('\n') : '';
  // `content` holds the reasoning itself (reasoning_text parts, from open-weight models); it says
  // more than a summary, so it is what the part carries when present.
  const full = Array.isArray(item.content) ? item.content.map((part) => (typeof (part as Json)?.text === 'string' ? ((part as Json).text as string) : '')).join('\n') : '';
  const text = full || summary;
  // Encrypted content we did not seal is OpenAI's own (a client that talks to OpenAI through us).
  const id = optionalString(item, 'id', `${path}.id`);
  const opaque = typeof sealed === 'string' && sealed ? { providerMetadata: { openai: { encryptedContent: sealed, ...(id ? { itemId: id } : {}) } } } : {};
  if (!text && !opaque.providerMetadata) return undefined;
  return { role: 'assistant', content: [{ type: 'reasoning', text, ...opaque }] };
}

/**
 * The input as an upstream Responses API may see it: reasoning we sealed is opened back into the
 * upstream's own encrypted content; reasoning another kind of upstream made goes as its summary,
 * an assistant message, where the client had one, and is left out otherwise, each noted in
 * `foreign` for the warning the encoder gives (src/catalog/reasoning-reads.ts holds the same rule).
 */
function forwardableInput(input: unknown[], context: DecodeContext, foreign: ForeignReasoningBlock[]): unknown[] {
  return input.flatMap((raw, index) => {
    const item = raw as Json | null;
    if (!item || item.type !== 'reasoning' || !isSealedByUs(item.encrypted_content)) return [raw];
    const part = unsealReasoning(item.encrypted_content, context.secret, `input[${index}].encrypted_content`);
    const encrypted = metadataString(part.providerMetadata, 'openai', 'encryptedContent');
    if (encrypted) return [{ ...item, encrypted_content: encrypted }];
    foreign.push({ message: index, block: 0, text: part.text, ...(part.writer ? { writer: part.writer } : {}) });
    return part.text ? [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: part.text }] }] : [];
  });
}

function withoutKey(json: Json, key: string): Json {
  const { [key]: _dropped, ...rest } = json;
  return rest;
}

const isText = (part: Part): part is TextPart => part.type === 'text';

function decodeContent(raw: unknown, path: string, kept: SameFormatOnly[]): Part[] {
  if (raw === undefined || raw === null) throw invalidRequest(`${path}: this field is required.`, path, 'missing_required_parameter');
  if (typeof raw === 'string') return [{ type: 'text', text: raw }];
  if (!Array.isArray(raw)) throw wrongType(path, 'a string or an array of content parts');
  const parts: Part[] = [];
  raw.forEach((item, index) => {
    const where = `${path}[${index}]`;
    const part = asObject(item, where);
    const type = requiredString(part, 'type', `${where}.type`);
    if (type === 'input_text' || type === 'output_text' || type === 'text') parts.push(withBreakpoint({ type: 'text', text: requiredString(part, 'text', `${where}.text`) }, part, where));
    else if (type === 'refusal') parts.push({ type: 'text', text: requiredString(part, 'refusal', `${where}.refusal`) });
    else if (type === 'input_image') {
      const image = decodeInputImage(part, where, kept);
      if (image) parts.push(withBreakpoint(image, part, where));
    } else if (type === 'input_file') {
      parts.push(withBreakpoint(decodeInputFile(part, where), part, where));
    } else {
      keepOnly(kept, where, `content parts of type '${type}' can be passed only to an OpenAI Responses upstream, and this model routes elsewhere.`);
    }
  });
  return parts;
}

const DETAILS = ['low', 'high', 'auto', 'original'] as const;

/**
 * An `input_image` part: `image_url` (a URL or a data: URL) with its `detail`, or an uploaded
 * `file_id`, which only OpenAI's Responses API can read
 * (https://platform.openai.com/docs/api-reference/responses/create#responses-create-input).
 */
function decodeInputImage(part: Json, path: string, kept: SameFormatOnly[]): ImagePart | undefined {
  const url = optionalString(part, 'image_url', `${path}.image_url`);
  const detail = optionalString(part, 'detail', `${path}.detail`);
  if (detail !== undefined && !(DETAILS as readonly string[]).includes(detail)) throw invalidRequest(`${path}.detail: expected one of low, high, auto, original.`, `${path}.detail`);
  if (url) return { type: 'image', url, ...(detail ? { detail: detail as ImagePart['detail'] } : {}) };
  if (optionalString(part, 'file_id', `${path}.file_id`)) {
    keepOnly(kept, path, "an input_image by file_id can be read only by OpenAI's Responses API, and this model routes elsewhere; send image_url (a URL or a data: URL) instead.");
    return undefined;
  }
  throw invalidRequest(`${path}: an input_image needs image_url or file_id.`, path, 'missing_required_parameter');
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
function decodeOutput(raw: unknown, path: string, kept: SameFormatOnly[]): Array<TextPart | ImagePart> {
  if (typeof raw === 'string') return [{ type: 'text', text: raw }];
  if (raw === undefined || raw === null) return [];
  const parts = decodeContent(raw, path, kept);
  const file = parts.findIndex((part) => part.type === 'file');
  // A tool result carries text and images only: a file there would be lost, so it is refused.
  if (file !== -1) throw invalidRequest(`${path}[${file}]: a file in a tool output cannot be passed on; send it in a user message.`, `${path}[${file}]`);
  return parts.filter((part): part is TextPart | ImagePart => part.type === 'text' || part.type === 'image');
}

/**
 * `tool_choice`: a mode, one function or custom tool, `allowed_tools` (the tools the model may use
 * this turn, with a mode: a translating backend is offered only those), or a hosted tool, which a
 * translating backend leaves out with the tool itself.
 * https://platform.openai.com/docs/api-reference/responses/create#responses-create-tool_choice
 */
function decodeToolChoice(raw: unknown, request: CanonicalRequest): void {
  if (raw === undefined || raw === null) return;
  if (raw === 'auto' || raw === 'none' || raw === 'required') {
    request.toolChoice = raw;
    return;
  }
  if (typeof raw === 'string') throw invalidRequest("tool_choice: expected 'auto', 'none', 'required' or a tool choice object.", 'tool_choice');
  const choice = asObject(raw, 'tool_choice');
  const type = requiredString(choice, 'type', 'tool_choice.type');
  if (type === 'function' || type === 'custom') {
    request.toolChoice = { name: canonicalToolName(requiredString(choice, 'name', 'tool_choice.name'), optionalString(choice, 'namespace', 'tool_choice.namespace')) };
    return;
  }
  if (type === 'allowed_tools') {
    const mode = requiredString(choice, 'mode', 'tool_choice.mode');
    if (mode !== 'auto' && mode !== 'required') throw invalidRequest("tool_choice.mode: expected 'auto' or 'required'.", 'tool_choice.mode');
    const allowed = new Set(
      asArray(choice.tools, 'tool_choice.tools').flatMap((item, index) => {
        const tool = asObject(item, `tool_choice.tools[${index}]`);
        return typeof tool.name === 'string' ? [canonicalToolName(tool.name, typeof tool.namespace === 'string' ? tool.namespace : undefined)] : [];
      }),
    );
    request.tools = request.tools.filter((tool) => allowed.has(tool.name));
    request.toolChoice = request.tools.length ? mode : 'none';
    return;
  }
  // Web search runs on every route, but only an OpenAI Responses upstream can be made to search.
  if (/^web_search/.test(type)) {
    keepOnly((request.sameFormatOnly ??= []), 'tool_choice', `tool_choice forces the hosted tool '${type}'; on this route the model is offered search but chooses for itself whether to search.`, false);
    return;
  }
  // A hosted tool (file_search, mcp, …): left out on a translating route.
  keepOnly((request.sameFormatOnly ??= []), 'tool_choice', `tool_choice forces the hosted tool '${type}', which this route leaves out (see dropped_tools); the model chooses for itself.`, false);
}

/**
 * `text.format`: json_schema becomes the canonical output schema, json_object JSON mode.
 * https://platform.openai.com/docs/api-reference/responses/create#responses-create-text
 */
function decodeTextFormat(raw: unknown, request: CanonicalRequest): void {
  if (!raw || typeof raw !== 'object') return;
  const format = (raw as Json).format as Json | undefined;
  if (!format) return;
  if (format.type === 'json_object') {
    request.jsonObject = true;
    return;
  }
  if (format.type !== 'json_schema' || !format.schema || typeof format.schema !== 'object') return;
  request.outputSchema = {
    name: typeof format.name === 'string' ? format.name : 'output',
    schema: format.schema as Record<string, unknown>,
    ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
  };
}
