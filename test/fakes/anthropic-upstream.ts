import type { ServerResponse } from 'node:http';
import type {
  ContentBlock,
  Message,
  MessageCreateParams,
  MessageDeltaUsage,
  RawMessageStreamEvent,
  StopReason,
  Usage,
} from '@anthropic-ai/sdk/resources/messages';
import { isObject, openEventStream, sendJson, startFakeServer, type FakeServerOptions, type FakeUpstream, type RecordedRequest } from './fake-server.js';
import { argumentsJson, randomId, scriptCursor, splitText, stopReason, usageFor, type Script, type ScriptedTurn } from './scripted-turn.js';
import { applyModelRules, issueSignature, type DroppedBlock, type IssuedBlock } from './anthropic-model-rules.js';
import { anthropicCache, anthropicPrompt } from './anthropic-prompt-cache.js';
import { PromptCache, credentialOf, promptCacheOf, type PromptCacheOption, type PromptRecord } from './prompt-cache.js';
import { fakeSearch, lastUserText, sealedContent, sealedIndex } from './web-search.js';

export interface AnthropicUpstreamOptions extends FakeServerOptions, PromptCacheOption {
  /** When set, `x-api-key` (or `Authorization: Bearer`) must equal it; otherwise any non-empty key passes. */
  apiKey?: string;
  /** Ids served by GET /v1/models, newest first. */
  models?: string[];
  /**
   * The one form the key is taken in, as gateways that read only one do (and refuse a call that
   * carries both); without it, either, as Anthropic's API takes `x-api-key` or `Authorization: Bearer`.
   */
  auth?: 'x-api-key' | 'bearer';
}

/** `url` is the origin; the Anthropic SDK appends /v1/messages itself. */
export interface AnthropicUpstream extends FakeUpstream {
  /** Each completed request's prompt and what the prompt cache did with it (none unless `promptCache`). */
  prompts: PromptRecord[];
  /** Thinking blocks dropped before the model saw them: another model wrote them, which this one does not read (anthropic-model-rules.ts). */
  dropped: DroppedBlock[];
}

const STOP_REASONS: Record<ReturnType<typeof stopReason>, StopReason> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use' };

/** Serves POST /v1/messages in Anthropic's wire format, streaming or not. */
export async function startAnthropicUpstream(script: Script<MessageCreateParams>, options: AnthropicUpstreamOptions = {}): Promise<AnthropicUpstream> {
  const nextTurn = scriptCursor(script);
  const cache = promptCacheOf(options.promptCache);
  const prompts: PromptRecord[] = [];
  // The thinking blocks this fake made, by signature: the model and conversation each was made for.
  const issued = new Map<string, IssuedBlock>();
  const dropped: DroppedBlock[] = [];

  const { origin, requests, close } = await startFakeServer(async (request, res) => {
    const url = new URL(request.path, 'http://fake');
    const pathname = url.pathname;
    const listing = request.method === 'GET' && pathname === '/v1/models';
    const counting = request.method === 'POST' && pathname === '/v1/messages/count_tokens';
    if (!listing && !counting && (request.method !== 'POST' || pathname !== '/v1/messages')) return sendError(res, 404, 'not_found_error', 'Not Found');
    if (!authorised(request, res, options.apiKey, options.auth)) return;
    if (!request.headers['anthropic-version']) return sendError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
    if (listing) return sendJson(res, 200, modelPage(options.models ?? ['claude-sonnet-4-5', 'claude-haiku-4-5'], url.searchParams), requestIdHeader());
    // https://docs.anthropic.com/en/api/messages-count-tokens: a model and messages, no max_tokens; about four characters a token here.
    if (counting) {
      const body = request.body;
      if (!isObject(body) || typeof body.model !== 'string' || !Array.isArray(body.messages)) return sendError(res, 400, 'invalid_request_error', 'model and messages: Field required');
      // The same validation as the Messages API, model by model (a forced tool choice, thinking off).
      const counted = applyModelRules(body, request.headers, issued, requests.length - 1, true);
      if (counted.refusal) return sendError(res, 400, 'invalid_request_error', counted.refusal);
      return sendJson(res, 200, { input_tokens: Math.ceil(JSON.stringify(body.messages).length / 4) }, requestIdHeader());
    }
    const body = request.body;
    if (!isObject(body)) return sendError(res, 400, 'invalid_request_error', 'There was an issue with the request body: invalid JSON');
    for (const field of ['model', 'messages', 'max_tokens']) {
      if (body[field] === undefined) return sendError(res, 400, 'invalid_request_error', `${field}: Field required`);
    }
    // The API checks cache_control (at most 4, 1h before 5m) before it does anything else.
    const cachePrompt = cache && anthropicPrompt(body);
    if (cachePrompt?.problem) return sendError(res, 400, 'invalid_request_error', cachePrompt.problem);
    // What the model's row refuses is a 400; thinking it cannot read is dropped, and reported under the binding beta.
    const rules = applyModelRules(body, request.headers, issued, requests.length - 1);
    if (rules.refusal) return sendError(res, 400, 'invalid_request_error', rules.refusal);
    dropped.push(...rules.dropped);
    const transformations = rules.transformations ? { input_transformations: rules.transformations } : {};
    const params = body as MessageCreateParams;
    const turn = await nextTurn(params);
    const headers = { ...requestIdHeader(), ...turn.headers };
    if (turn.status !== undefined && (turn.status < 200 || turn.status > 299)) {
      return sendJson(res, turn.status, turn.errorBody ?? errorBody(turn.status), headers);
    }
    // Per organisation (the key) and model; entries of one workspace are not another's.
    const prompt = cache && cachePrompt && anthropicCache(cache, PromptCache.scope('anthropic', credentialOf(request.headers), params.model), params.model, cachePrompt);
    if (prompt) prompts.push(prompt);
    if (params.stream) return streamMessage(res, turn, params, headers, prompt, transformations);
    const reply = message(turn, params, issued, prompt);
    sendJson(res, turn.status ?? 200, { ...reply, ...transformations, ...extraOf(turn, reply) }, headers);
  });

  async function streamMessage(res: ServerResponse, turn: ScriptedTurn, params: MessageCreateParams, headers: Record<string, string>, prompt: PromptRecord | undefined, transformations: Record<string, unknown>) {
    const sse = openEventStream(res, headers, options);
    const send = (event: RawMessageStreamEvent) => sse.frame(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    // Anthropic sends the first ping right after the first content_block_start.
    const ping = () => sse.frame('event: ping\ndata: {"type": "ping"}\n\n');
    const full = message(turn, params, issued, prompt);

    // The input side of usage, cache reads and writes included, comes in message_start; message_delta repeats it with the final output count.
    // input_transformations, under the binding beta, is final in message_start.
    await send({
      type: 'message_start',
      message: { ...full, ...transformations, content: [], stop_reason: null, stop_sequence: null, usage: { ...full.usage, output_tokens: 1 } },
    } as RawMessageStreamEvent);
    if (full.content.length === 0) await ping();
    let toolIndex = 0;
    for (const [index, block] of full.content.entries()) {
      const delta = (d: Extract<RawMessageStreamEvent, { type: 'content_block_delta' }>['delta']) => send({ type: 'content_block_delta', index, delta: d });
      if (block.type === 'thinking') {
        await send({ type: 'content_block_start', index, content_block: { ...block, thinking: '', signature: '' } });
        if (index === 0) await ping();
        for (const piece of splitText(block.thinking, turn.chunkSize)) await delta({ type: 'thinking_delta', thinking: piece });
        await delta({ type: 'signature_delta', signature: block.signature });
      } else if (block.type === 'text') {
        await send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } as any });
        if (index === 0) await ping();
        // A cited block gives its citations first, then the text they cite.
        for (const citation of block.citations ?? []) await delta({ type: 'citations_delta', citation });
        for (const piece of splitText(block.text, turn.chunkSize)) await delta({ type: 'text_delta', text: piece });
      } else if (block.type === 'server_tool_use') {
        // The query streams as the input's JSON; the result block then comes whole in its start event.
        await send({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
        if (index === 0) await ping();
        await delta({ type: 'input_json_delta', partial_json: JSON.stringify(block.input) });
      } else if (block.type === 'web_search_tool_result') {
        await send({ type: 'content_block_start', index, content_block: block });
      } else if (block.type === 'tool_use') {
        await send({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
        if (index === 0) await ping();
        // The real API opens every tool input with an empty fragment.
        await delta({ type: 'input_json_delta', partial_json: '' });
        // Stream the scripted arguments verbatim, so a malformed JSON string reaches the client as is.
        const call = turn.toolCalls![toolIndex++]!;
        for (const piece of splitText(argumentsJson(call), turn.chunkSize)) await delta({ type: 'input_json_delta', partial_json: piece });
      }
      await send({ type: 'content_block_stop', index });
    }
    await send({
      type: 'message_delta',
      delta: { stop_reason: full.stop_reason, stop_sequence: full.stop_sequence, container: null, stop_details: null, ...extraOf(turn, full) } as any,
      usage: { ...deltaUsage(full.usage), ...(full.usage.server_tool_use ? { server_tool_use: full.usage.server_tool_use } : {}) },
    });
    await send({ type: 'message_stop' });
    sse.end();
  }

  return { url: origin, requests, prompts, dropped, close };
}

/** Blocks in Anthropic's order: thinking, text, then one tool_use per call. */
function message(turn: ScriptedTurn, params: MessageCreateParams, issued: Map<string, IssuedBlock>, prompt?: PromptRecord): Message {
  const content: ContentBlock[] = [];
  if (turn.reasoning) {
    // A signature the fake remembers: the model and the conversation it was made for.
    content.push({ type: 'thinking', thinking: turn.reasoning.text, signature: issueSignature(issued, params as unknown as Record<string, unknown>, turn.reasoning.signature) });
  }
  // Web search, when scripted and offered: https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool
  const tool = (params.tools ?? []).find((candidate: any) => typeof candidate.type === 'string' && /^web_search_\d{8}$/.test(candidate.type)) as any;
  const found = turn.webSearch && tool ? fakeSearch(turn.webSearch.query ?? lastUserText(params.messages), { allowedDomains: tool.allowed_domains, blockedDomains: tool.blocked_domains }) : undefined;
  if (found) {
    const id = randomId('srvtoolu_01');
    const query = turn.webSearch!.query ?? lastUserText(params.messages);
    content.push({ type: 'server_tool_use', id, name: 'web_search', input: { query }, caller: { type: 'direct' } } as ContentBlock);
    content.push({
      type: 'web_search_tool_result',
      tool_use_id: id,
      caller: { type: 'direct' },
      content: found.map((result) => ({ type: 'web_search_result', url: result.url, title: result.title, encrypted_content: sealedContent(result), page_age: result.pageAge })),
    } as ContentBlock);
  }
  // Anthropic leaves `citations` out of a text block that cites nothing (the SDK types it as nullable;
  // clients such as @ai-sdk/anthropic refuse a null there), and the router now forwards the block as sent.
  if (turn.text !== undefined) {
    const cited = found?.[0];
    const citations = cited ? [{ type: 'web_search_result_location', url: cited.url, title: cited.title, encrypted_index: sealedIndex(cited), cited_text: cited.content }] : undefined;
    content.push({ type: 'text', text: turn.text, ...(citations ? { citations } : {}) } as ContentBlock);
  }
  for (const call of turn.toolCalls ?? []) {
    content.push({ type: 'tool_use', id: call.id ?? randomId('toolu_01'), name: call.name, input: toolInput(call.arguments), caller: { type: 'direct' } });
  }
  return {
    id: randomId('msg_01'),
    type: 'message',
    role: 'assistant',
    model: params.model,
    content,
    stop_reason: (turn.anthropicStop?.reason ?? STOP_REASONS[stopReason(turn)]) as Message['stop_reason'],
    stop_sequence: turn.anthropicStop?.sequence ?? null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: { ...usage(turn, params, prompt), ...(found ? { server_tool_use: { web_search_requests: 1, web_fetch_requests: 0 } } : {}) },
  };
}

function extraOf(turn: ScriptedTurn, reply: Message): Record<string, unknown> {
  const ids = reply.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
  return typeof turn.anthropicExtra === 'function' ? turn.anthropicExtra(ids) : (turn.anthropicExtra ?? {});
}

function toolInput(args: object | string): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/** Anthropic counts cache reads and writes apart from input_tokens; the scripted `input` includes them. */
function usage(turn: ScriptedTurn, params: MessageCreateParams, prompt?: PromptRecord): Usage {
  const { input, output, cached, cacheWrite, cacheWrite1h } = usageFor(turn, params.messages, prompt);
  return {
    input_tokens: Math.max(0, input - cached - cacheWrite),
    output_tokens: output,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: cacheWrite,
    cache_creation: { ephemeral_5m_input_tokens: cacheWrite - cacheWrite1h, ephemeral_1h_input_tokens: cacheWrite1h },
    inference_geo: 'not_available',
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    speed: null,
  };
}

function deltaUsage(full: Usage): MessageDeltaUsage {
  return {
    input_tokens: full.input_tokens,
    output_tokens: full.output_tokens,
    cache_read_input_tokens: full.cache_read_input_tokens,
    cache_creation_input_tokens: full.cache_creation_input_tokens,
    output_tokens_details: null,
    server_tool_use: null,
  };
}

/**
 * GET /v1/models (https://docs.anthropic.com/en/api/models-list): `limit` models a page (20 by
 * default, 1 to 1000), `after_id` to page on, `has_more` when more follow.
 */
function modelPage(ids: string[], query: URLSearchParams) {
  const limit = Math.min(1000, Math.max(1, Number(query.get('limit') ?? 20) || 20));
  const after = query.get('after_id');
  const start = after === null ? 0 : ids.indexOf(after) + 1;
  const page = ids.slice(start, start + limit);
  const data = page.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-09-29T00:00:00Z' }));
  return { data, has_more: start + limit < ids.length, first_id: page[0] ?? null, last_id: page.at(-1) ?? null };
}

function authorised(request: RecordedRequest, res: ServerResponse, apiKey: string | undefined, only?: 'x-api-key' | 'bearer'): boolean {
  const header = request.headers['x-api-key'];
  const bearer = request.headers.authorization?.replace(/^Bearer\s+/i, '');
  if (only && header !== undefined && request.headers.authorization !== undefined) {
    sendError(res, 401, 'authentication_error', 'x-api-key and Authorization may not both be sent');
    return false;
  }
  if (only === 'bearer' && header !== undefined) {
    sendError(res, 401, 'authentication_error', 'send the key as Authorization: Bearer');
    return false;
  }
  if (only === 'x-api-key' && request.headers.authorization !== undefined) {
    sendError(res, 401, 'authentication_error', 'send the key as x-api-key');
    return false;
  }
  const given = (Array.isArray(header) ? header[0] : header) || bearer;
  if (!given) {
    sendError(res, 401, 'authentication_error', 'x-api-key header is required');
    return false;
  }
  if (apiKey !== undefined && given !== apiKey) {
    sendError(res, 401, 'authentication_error', 'invalid x-api-key');
    return false;
  }
  return true;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function errorBody(status: number, type?: string, message?: string) {
  const errorType = type ?? ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  const text = message ?? (errorType === 'overloaded_error' ? 'Overloaded' : `Request failed with status ${status}`);
  return { type: 'error', error: { type: errorType, message: text }, request_id: randomId('req_011') };
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, errorBody(status, type, message), requestIdHeader());
}

function requestIdHeader(): Record<string, string> {
  return { 'request-id': randomId('req_011') };
}
