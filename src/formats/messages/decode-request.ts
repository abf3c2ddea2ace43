import { foreignThinkingBlocks, unsealThinking } from './foreign-reasoning.js';
import { invalidRequest } from '../../core/errors.js';
import { keepForwardBody } from '../../core/forwarded.js';
import type { CanonicalRequest, FilePart, ImagePart, Message, Part, SameFormatOnly, TextPart, ToolChoice, ToolSpec } from '../../core/request.js';
import { keepForSameFormat } from '../../core/same-format-only.js';
import { loadedToolNames, toolsForUpstream, toolsLoadedNote } from '../../core/tool-search.js';
import type { DecodeContext, Decoded } from '../client-format.js';
import {
  asArray,
  asObject,
  optionalBoolean,
  optionalInteger,
  optionalNumber,
  optionalString,
  optionalStringList,
  requiredString,
  wrongType,
  type Json,
} from '../shared/read-fields.js';
import { parseReasoningEffort } from '../shared/reasoning-effort.js';
import type { AppliedContextEdit } from '../../core/context-edits.js';
import { decodeContextManagement } from './context-management.js';
import { setAsideAttribution } from './system-attribution.js';
import { nameUnhonouredBetas } from './beta-features.js';
import type { WebSearchPart, WebSearchSpec } from '../../core/web-search.js';
import { readDomains, readMaxUses, readUserLocation, searchSpec, unmodelledSearchFields } from '../shared/web-search-options.js';

export interface MessagesOptions {
  /** What the router's context editing cleared, when the request asked for edits (context-management.ts). */
  contextManagement?: AppliedContextEdit[];
  /** The router's estimate of the prompt before those edits (count_tokens' `original_input_tokens`). */
  originalInputTokens?: number;
}

/** Decodes an Anthropic Messages request body, including what Claude Code really sends. */
export function decodeMessagesRequest(body: unknown, context?: DecodeContext): Decoded<MessagesOptions> {
  const json = asObject(body, 'body');
  const model = requiredString(json, 'model');
  const maxTokens = optionalInteger(json, 'max_tokens');
  if (maxTokens === undefined) throw invalidRequest('max_tokens: this field is required.', 'max_tokens', 'missing_required_parameter');
  if (json.messages === undefined || json.messages === null) throw invalidRequest('messages: this field is required.', 'messages', 'missing_required_parameter');
  const list = asArray(json.messages, 'messages');

  const messages: Message[] = [];
  const kept: SameFormatOnly[] = [];
  list.forEach((raw, index) => messages.push(...decodeMessage(raw, `messages.${index}`, kept)));

  const tools = decodeTools(json.tools, kept);
  const request: CanonicalRequest = {
    model,
    system: decodeSystem(json.system),
    messages,
    tools: tools.specs,
    maxOutputTokens: maxTokens,
  };
  setAsideAttribution(request);
  holdBackDeferredTools(request, kept);
  if (tools.webSearch) request.webSearch = tools.webSearch;
  if (tools.webSearchUnsent) kept.push(tools.webSearchUnsent);
  if (kept.length) request.sameFormatOnly = kept;
  const toolChoice = decodeToolChoice(json.tool_choice, request);
  if (toolChoice) request.toolChoice = toolChoice;
  const temperature = optionalNumber(json, 'temperature', 'temperature', { min: 0, max: 1 });
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(json, 'top_p', 'top_p', { min: 0, max: 1 });
  if (topP !== undefined) request.topP = topP;
  const topK = optionalInteger(json, 'top_k');
  if (topK !== undefined) request.topK = topK;
  const stop = optionalStringList(json, 'stop_sequences');
  if (stop) request.stop = stop;
  decodeThinking(json, request);
  decodeFallbacks(json.fallbacks, request);
  // After everything the edits' trigger counts (system, tools, messages) is decoded.
  const contextManagement = decodeContextManagement(json, request);
  nameUnhonouredBetas(context?.headers?.['anthropic-beta'], request);
  const metadata = json.metadata === undefined || json.metadata === null ? undefined : asObject(json.metadata, 'metadata');
  const userId = metadata && optionalString(metadata, 'user_id', 'metadata.user_id');
  if (userId) {
    request.metadata = { user_id: userId };
    request.sessionName = userId;
  }

  // Thinking this router sealed for another upstream: opened for the translators, and rewritten in the body forwarded to Anthropic.
  unsealThinking(messages, context?.secret);
  const sealed = foreignThinkingBlocks(json.messages, context?.secret);
  keepForwardBody(request, { format: 'messages', body: json, ...(sealed.length ? { foreignReasoning: sealed } : {}) });
  return { request, stream: optionalBoolean(json, 'stream') ?? false, options: contextManagement ? { contextManagement: contextManagement.applied, originalInputTokens: contextManagement.originalInputTokens } : {}, ...(tools.dropped.length ? { droppedTools: tools.dropped } : {}) };
}

function decodeSystem(raw: unknown): TextPart[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'string') return raw ? [{ type: 'text', text: raw }] : [];
  return asArray(raw, 'system').map((item, index) => {
    const block = asObject(item, `system.${index}`);
    return withCacheControl(block, { type: 'text', text: requiredString(block, 'text', `system.${index}.text`) });
  });
}

/** One Anthropic message may become two canonical ones: its tool results, then the rest. */
function decodeMessage(raw: unknown, path: string, kept: SameFormatOnly[]): Message[] {
  const message = asObject(raw, path);
  const role = requiredString(message, 'role', `${path}.role`);
  if (role !== 'user' && role !== 'assistant' && role !== 'system') {
    throw invalidRequest(`${path}.role: expected 'user' or 'assistant'.`, `${path}.role`);
  }
  const blocks = decodeBlocks(message.content, `${path}.content`, kept);
  const results = blocks.filter((part) => part.type === 'tool-result');
  const rest = blocks.filter((part) => part.type !== 'tool-result');
  const decoded: Message[] = [];
  if (results.length) decoded.push({ role: 'tool', content: results });
  if (rest.length || !results.length) decoded.push({ role, content: rest });
  return decoded;
}

function decodeBlocks(raw: unknown, path: string, kept: SameFormatOnly[]): Part[] {
  if (raw === undefined || raw === null) throw invalidRequest(`${path}: this field is required.`, path, 'missing_required_parameter');
  if (typeof raw === 'string') return [{ type: 'text', text: raw }];
  if (!Array.isArray(raw)) throw wrongType(path, 'a string or an array of content blocks');
  const parts: Part[] = [];
  raw.forEach((item, index) => {
    const part = decodeBlock(item, `${path}.${index}`, kept);
    if (!part) return;
    // A replayed search's result joins the server_tool_use that asked for it: one canonical search.
    const call = part.type === 'web-search' ? parts.find((earlier): earlier is WebSearchPart => earlier.type === 'web-search' && earlier.id === part.id) : undefined;
    if (call && part.type === 'web-search') Object.assign(call, { results: part.results, ...(part.errorCode ? { errorCode: part.errorCode } : {}) });
    else parts.push(part);
  });
  return parts;
}

function decodeBlock(raw: unknown, path: string, kept: SameFormatOnly[]): Part | undefined {
  const block = asObject(raw, path);
  const part = decodeBlockPart(block, path, kept);
  const placed = part && withCacheControl(block, part);
  const reference = part && TOOL_REFERENCES.get(part);
  if (placed && reference) TOOL_REFERENCES.set(placed, reference);
  return placed;
}

/**
 * A cache breakpoint (a system block's too: Claude Code marks its system prompt) rides in the
 * anthropic namespace, for an upstream that takes breakpoints to set again.
 */
function withCacheControl<P extends Part>(block: Json, part: P): P {
  if (block.cache_control === undefined || block.cache_control === null) return part;
  return { ...part, providerMetadata: { ...part.providerMetadata, anthropic: { ...part.providerMetadata?.anthropic, cacheControl: block.cache_control } } };
}

function decodeBlockPart(block: Json, path: string, kept: SameFormatOnly[]): Part | undefined {
  const type = requiredString(block, 'type', `${path}.type`);
  switch (type) {
    case 'text': {
      const text = requiredString(block, 'text', `${path}.text`);
      // Citations on a replayed answer ride in the anthropic namespace, for an Anthropic upstream.
      const citations = Array.isArray(block.citations) && block.citations.length ? { providerMetadata: { anthropic: { citations: block.citations } } } : {};
      return { type: 'text', text, ...citations };
    }
    case 'image':
      return decodeImage(block, path);
    case 'tool_use':
      nameIndirectCaller(block, path, kept);
      return {
        type: 'tool-call',
        id: requiredString(block, 'id', `${path}.id`),
        name: requiredString(block, 'name', `${path}.name`),
        arguments: JSON.stringify(block.input ?? {}),
      };
    case 'tool_result': {
      const decoded = block.content === undefined || block.content === null ? [] : decodeBlocks(block.content, `${path}.content`, kept);
      // A tool result carries text and images only: a document there would be lost, so it is refused.
      const file = decoded.findIndex((part) => part.type === 'file');
      if (file !== -1) throw invalidRequest(`${path}.content: a document in a tool_result cannot be passed on; send it in a user message.`, `${path}.content`);
      // Tool references (a tool search's answer) load their tools; the model is told so in words.
      const loads = decoded.flatMap((part) => TOOL_REFERENCES.get(part) ?? []);
      const content = loads.length ? foldToolReferences(decoded, loads) : decoded;
      return {
        type: 'tool-result',
        callId: requiredString(block, 'tool_use_id', `${path}.tool_use_id`),
        content: content.filter((part): part is TextPart | ImagePart => part.type === 'text' || part.type === 'image'),
        ...(block.is_error === true ? { isError: true } : {}),
        ...(loads.length ? { loadsTools: loads } : {}),
      };
    }
    case 'thinking': {
      const signature = optionalString(block, 'signature', `${path}.signature`);
      return { type: 'reasoning', text: optionalString(block, 'thinking', `${path}.thinking`) ?? '', ...(signature ? { providerMetadata: { anthropic: { signature } } } : {}) };
    }
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: requiredString(block, 'data', `${path}.data`) } } };
    case 'document':
      return decodeDocument(block, path);
    case 'server_tool_use':
      if (block.name !== 'web_search') break;
      return { type: 'web-search', id: requiredString(block, 'id', `${path}.id`), query: searchQuery(block.input), results: [] };
    case 'web_search_tool_result':
      return replayedSearchResult(block, path);
    case 'tool_reference': {
      // A tool search's answer (Claude Code's ToolSearch): its tool_result loads the tool named.
      const name = requiredString(block, 'tool_name', `${path}.tool_name`);
      const part: TextPart = { type: 'text', text: toolsLoadedNote([name]) };
      TOOL_REFERENCES.set(part, name);
      return part;
    }
  }
  // search_result blocks, replayed server-tool blocks other than web search (web_fetch,
  // mcp_tool_result, …) and block types not modelled here: an Anthropic upstream gets them in
  // the forwarded body; any other route refuses the request rather than leave them out.
  kept.push({
    param: path,
    message: `content blocks of type '${type}' can be passed only to an Anthropic upstream, and this model routes elsewhere; leave the block out or send what it holds as text.`,
    refuse: true,
  });
  return undefined;
}

const searchQuery = (input: unknown): string => (input && typeof input === 'object' && typeof (input as Json).query === 'string' ? ((input as Json).query as string) : '');

/** A replayed web_search_tool_result: the pages found (with the encrypted content Anthropic needs back), or the error. */
function replayedSearchResult(block: Json, path: string): WebSearchPart {
  const id = requiredString(block, 'tool_use_id', `${path}.tool_use_id`);
  const content = block.content;
  if (!Array.isArray(content)) {
    const error = asObject(content, `${path}.content`);
    return { type: 'web-search', id, query: '', results: [], errorCode: optionalString(error, 'error_code', `${path}.content.error_code`) ?? 'unavailable' };
  }
  const results = content.map((item, index) => {
    const result = asObject(item, `${path}.content.${index}`);
    const where = `${path}.content.${index}`;
    const title = optionalString(result, 'title', `${where}.title`);
    const pageAge = optionalString(result, 'page_age', `${where}.page_age`);
    const encryptedContent = optionalString(result, 'encrypted_content', `${where}.encrypted_content`);
    return { url: requiredString(result, 'url', `${where}.url`), ...(title !== undefined ? { title } : {}), ...(pageAge !== undefined ? { pageAge } : {}), ...(encryptedContent !== undefined ? { encryptedContent } : {}) };
  });
  return { type: 'web-search', id, query: '', results };
}

/** The text parts decoded from tool_reference blocks, by the tool each names (read by the enclosing tool_result). */
const TOOL_REFERENCES = new WeakMap<Part, string>();

/** One note for all of a tool_result's references, where the last of them was (keeping a cache breakpoint set on it). */
function foldToolReferences(parts: Part[], loads: string[]): Part[] {
  const last = parts.findLastIndex((part) => TOOL_REFERENCES.has(part));
  const note: TextPart = { ...(parts[last] as TextPart), text: toolsLoadedNote(loads) };
  return parts.flatMap((part, index) => (index === last ? [note] : TOOL_REFERENCES.has(part) ? [] : [part]));
}

/**
 * Deferred tools wait for a tool_reference to load them (core/tool-search.ts); a reference to a
 * tool the request does not declare would be refused by Anthropic (tool_reference_unresolved), so
 * it is refused on a translating route too rather than guessed at.
 */
function holdBackDeferredTools(request: CanonicalRequest, kept: SameFormatOnly[]): void {
  const { tools, held, unresolved } = toolsForUpstream(request.tools, loadedToolNames(request.messages));
  request.tools = tools;
  if (held.length) request.deferredTools = held;
  for (const name of unresolved) {
    kept.push({ param: 'tools', message: `a tool_reference names '${name}', which is not among the request's tools; declare it (with defer_loading: true) or leave the reference out.`, refuse: true });
  }
}

/**
 * `caller` says who made a replayed tool call: `direct` (the model itself, the only kind other
 * upstreams make) changes nothing; a call made from Anthropic's code execution
 * (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/programmatic-tool-calling) is an
 * ordinary call elsewhere, which is named in the warnings.
 */
function nameIndirectCaller(block: Json, path: string, kept: SameFormatOnly[]): void {
  const caller = block.caller;
  if (caller === undefined || caller === null) return;
  const type = typeof caller === 'object' && typeof (caller as Json).type === 'string' ? ((caller as Json).type as string) : 'unknown';
  if (type === 'direct') return;
  kept.push({ param: `${path}.caller`, message: `a tool call made by '${type}' is replayed as the model's own call: only an Anthropic upstream runs tools from code.`, refuse: false });
}

/**
 * A `document` block: a PDF as base64 or by URL, plain text, or an Anthropic file id
 * (https://docs.anthropic.com/en/docs/build-with-claude/pdf-support). `title` is its filename;
 * `context` and `citations` stay in the anthropic namespace.
 */
function decodeDocument(block: Json, path: string): FilePart {
  const source = asObject(block.source, `${path}.source`);
  const kind = requiredString(source, 'type', `${path}.source.type`);
  const title = optionalString(block, 'title', `${path}.title`);
  const extra: Record<string, unknown> = {};
  if (block.context !== undefined && block.context !== null) extra.context = block.context;
  if (block.citations !== undefined && block.citations !== null) extra.citations = block.citations;
  const common = { ...(title ? { filename: title } : {}), ...(Object.keys(extra).length ? { providerMetadata: { anthropic: extra } } : {}) };
  switch (kind) {
    case 'base64':
      return { type: 'file', source: { kind: 'base64', data: requiredString(source, 'data', `${path}.source.data`) }, mediaType: requiredString(source, 'media_type', `${path}.source.media_type`), ...common };
    case 'text':
      return { type: 'file', source: { kind: 'text', text: requiredString(source, 'data', `${path}.source.data`) }, mediaType: optionalString(source, 'media_type', `${path}.source.media_type`) ?? 'text/plain', ...common };
    case 'url':
      return { type: 'file', source: { kind: 'url', url: requiredString(source, 'url', `${path}.source.url`) }, mediaType: 'application/pdf', ...common };
    case 'file':
      return { type: 'file', source: { kind: 'file-id', id: requiredString(source, 'file_id', `${path}.source.file_id`), provider: 'anthropic' }, ...common };
    default:
      throw invalidRequest(`${path}.source.type: a document source of type '${kind}' cannot be passed on; send it as 'base64', 'text', 'url' or 'file'.`, `${path}.source.type`);
  }
}

function decodeImage(block: Json, path: string): ImagePart {
  const source = asObject(block.source, `${path}.source`);
  const kind = requiredString(source, 'type', `${path}.source.type`);
  if (kind === 'url') return { type: 'image', url: requiredString(source, 'url', `${path}.source.url`) };
  if (kind === 'base64') {
    const mediaType = requiredString(source, 'media_type', `${path}.source.media_type`);
    const data = requiredString(source, 'data', `${path}.source.data`);
    return { type: 'image', url: `data:${mediaType};base64,${data}`, mediaType };
  }
  throw invalidRequest(`${path}.source.type: expected 'base64' or 'url'.`, `${path}.source.type`);
}

/**
 * Client tools become canonical specs. Server tools (web_search_20250305, code_execution_…, …) have
 * a versioned type and no input_schema: an Anthropic upstream runs them; elsewhere they are left
 * out and listed in svc_meta.dropped_tools, as Responses hosted tools are. Two are exceptions: web
 * search, which every route runs (core/web-search.ts), and tool search, without which the deferred
 * tools could never load, so a translating route refuses it.
 */
function decodeTools(raw: unknown, kept: SameFormatOnly[]): { specs: ToolSpec[]; dropped: string[]; webSearch?: WebSearchSpec; webSearchUnsent?: SameFormatOnly } {
  const tools: ToolSpec[] = [];
  const dropped: string[] = [];
  let webSearch: WebSearchSpec | undefined;
  let webSearchUnsent: SameFormatOnly | undefined;
  if (raw === undefined || raw === null) return { specs: tools, dropped };
  asArray(raw, 'tools').forEach((item, index) => {
    const tool = asObject(item, `tools.${index}`);
    if (typeof tool.type === 'string' && TOOL_SEARCH_TYPE.test(tool.type)) {
      kept.push({ param: `tools.${index}`, message: `the server tool '${tool.type}' runs only on an Anthropic upstream, and this model routes elsewhere; route it to an anthropic backend, or answer tool search in the client with a tool whose result holds tool_reference blocks (as Claude Code's ToolSearch does).`, refuse: true });
      return;
    }
    if (typeof tool.type === 'string' && WEB_SEARCH_TOOL.test(tool.type)) {
      // Web search: every route runs it (core/web-search.ts), natively or through its search target.
      const path = `tools.${index}`;
      webSearch = searchSpec(tool.type, path, {
        allowedDomains: readDomains(tool, 'allowed_domains', `${path}.allowed_domains`),
        blockedDomains: readDomains(tool, 'blocked_domains', `${path}.blocked_domains`),
        maxUses: readMaxUses(tool, 'max_uses', `${path}.max_uses`),
        userLocation: readUserLocation(tool.user_location, `${path}.user_location`),
      });
      // A breakpoint on the tool list is the router's to place on a translating route.
      const unsent = unmodelledSearchFields(tool, ['type', 'name', 'allowed_domains', 'blocked_domains', 'max_uses', 'user_location', 'cache_control']);
      if (unsent.length) webSearchUnsent = { param: path, message: `web search ${unsent.join(', ')} not applied: only an Anthropic upstream takes them; the search runs without.`, refuse: false };
      return;
    }
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
      dropped.push(typeof tool.type === 'string' ? tool.type : 'unknown');
      return;
    }
    const spec: ToolSpec = {
      name: requiredString(tool, 'name', `tools.${index}.name`),
      parameters: asObject(tool.input_schema, `tools.${index}.input_schema`),
    };
    const description = optionalString(tool, 'description', `tools.${index}.description`);
    if (description !== undefined) spec.description = description;
    // A deferred tool (defer_loading) waits for a tool_reference to load it: held back until then
    // (Claude Code also sends a placeholder it must never call, which so never reaches the model).
    if (tool.defer_loading === true) spec.deferred = true;
    tools.push(spec);
  });
  return { specs: tools, dropped, ...(webSearch ? { webSearch } : {}), ...(webSearchUnsent ? { webSearchUnsent } : {}) };
}

/** Anthropic's tool search server tools, every version: tool_search_tool_regex_20251119, tool_search_tool_bm25_20251119, … */
const TOOL_SEARCH_TYPE = /^tool_search_tool_(regex|bm25)(_\d+)?$/;
/** Anthropic's web search server tool, any version: https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool */
const WEB_SEARCH_TOOL = /^web_search_\d{8}$/;

function decodeToolChoice(raw: unknown, request: CanonicalRequest): ToolChoice | undefined {
  if (raw === undefined || raw === null) return undefined;
  const choice = asObject(raw, 'tool_choice');
  if (choice.disable_parallel_tool_use === true) request.parallelToolCalls = false;
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { name: requiredString(choice, 'name', 'tool_choice.name') };
    default:
      throw invalidRequest("tool_choice.type: expected 'auto', 'any', 'tool' or 'none'.", 'tool_choice.type');
  }
}

/**
 * `fallbacks` (Anthropic's server-side fallback, beta: https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback):
 * `"default"`, or a list of models. Either asks that a declined request be answered by another
 * model; a list names Anthropic models, which only an Anthropic upstream given the client's own
 * body runs, while elsewhere the route's next target answers.
 */
function decodeFallbacks(raw: unknown, request: CanonicalRequest): void {
  if (raw === undefined || raw === null) return;
  if (raw !== 'default' && !Array.isArray(raw)) throw invalidRequest("fallbacks: expected \"default\" or a list of fallback models.", 'fallbacks');
  request.fallbacks = 'default';
  if (Array.isArray(raw)) keepForSameFormat(request, 'fallbacks', "the list of fallback models reaches only an Anthropic upstream sent the client's own body; elsewhere a refusal is answered by the route's next target.", false);
}

/** `thinking` (enabled with a budget, or adaptive) and `output_config.effort` become the canonical controls. */
function decodeThinking(json: Json, request: CanonicalRequest): void {
  const outputConfig = json.output_config === undefined || json.output_config === null ? undefined : asObject(json.output_config, 'output_config');
  const effort = outputConfig && parseReasoningEffort(optionalString(outputConfig, 'effort', 'output_config.effort'), 'output_config.effort');
  if (outputConfig?.format !== undefined && outputConfig.format !== null) request.outputSchema = decodeOutputFormat(outputConfig.format);
  if (json.thinking === undefined || json.thinking === null) {
    if (effort) request.reasoningEffort = effort;
    return;
  }
  const thinking = asObject(json.thinking, 'thinking');
  const type = requiredString(thinking, 'type', 'thinking.type');
  const display = optionalString(thinking, 'display', 'thinking.display');
  // 'summarized' and 'omitted' become the canonical setting, which backends honour where their
  // upstream has one; any other display is Anthropic's alone, named in the warnings elsewhere.
  if (display !== undefined && type !== 'disabled') {
    if (display === 'summarized' || display === 'omitted') request.reasoningDisplay = display;
    else keepForSameFormat(request, 'thinking.display', `'${display}' is honoured only by an Anthropic upstream; this upstream shows reasoning its own way.`, false);
  }
  if (type === 'enabled') {
    const budget = optionalInteger(thinking, 'budget_tokens', 'thinking.budget_tokens');
    if (budget !== undefined) request.reasoningBudget = budget;
    request.reasoningEffort = effort ?? 'medium';
  } else if (type === 'adaptive') {
    request.reasoningEffort = effort ?? 'medium';
  } else if (type === 'disabled') {
    // Thinking off is what the other formats call effort none: each backend sends its model's nearest (src/catalog/).
    request.reasoningEffort = 'none';
  } else {
    throw invalidRequest("thinking.type: expected 'enabled', 'adaptive' or 'disabled'.", 'thinking.type');
  }
}

/**
 * `output_config.format: {type: 'json_schema', schema}`: Anthropic's structured outputs, which
 * always hold the answer to the schema (so `strict`).
 * https://platform.claude.com/docs/en/build-with-claude/structured-outputs
 */
function decodeOutputFormat(raw: unknown): NonNullable<CanonicalRequest['outputSchema']> {
  const format = asObject(raw, 'output_config.format');
  const type = requiredString(format, 'type', 'output_config.format.type');
  if (type !== 'json_schema') throw invalidRequest("output_config.format.type: expected 'json_schema'.", 'output_config.format.type');
  return { name: 'output', schema: asObject(format.schema, 'output_config.format.schema'), strict: true };
}
