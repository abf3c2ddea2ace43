import type { ServerResponse } from 'node:http';
import type {
  Response,
  ResponseCreateParams,
  ResponseFunctionToolCall,
  ResponseOutputItem,
  ResponseOutputMessage,
  ResponseOutputText,
  ResponseReasoningItem,
  ResponseStreamEvent,
  ResponseUsage,
} from 'openai/resources/responses/responses';
import { isObject, openEventStream, sendJson, startFakeServer, type FakeServerOptions, type FakeUpstream, type RecordedRequest } from './fake-server.js';
import { argumentsJson, defaultSignature, randomId, scriptCursor, splitText, stopReason, usageFor, type Script, type ScriptedTurn } from './scripted-turn.js';
import { authorised, defaultError, requestIdHeader, sendError } from './openai-errors.js';
import { automaticCache, openAIRules } from './automatic-prompt-cache.js';
import { PromptCache, credentialOf, promptCacheOf, type PromptCacheOption, type PromptRecord } from './prompt-cache.js';
import { openAIResponsesParts } from './prompt-parts.js';
import { fakeSearch, lastUserText } from './web-search.js';
import { cacheControlRefusal, cacheDiagnostics } from './openai-model-rules.js';

export interface OpenAIResponsesUpstreamOptions extends FakeServerOptions, PromptCacheOption {
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Ids served by GET /v1/models. */
  models?: string[];
}

/** `url` is the base URL ending in /v1, as OpenAI clients expect. */
export interface OpenAIResponsesUpstream extends FakeUpstream {
  /** Each completed request's prompt and what the prompt cache did with it (none unless `promptCache`). */
  prompts: PromptRecord[];
}

/**
 * The response object as it travels on the wire. `output_text` is a convenience the SDK computes
 * on the client; the API does not send it.
 */
export type WireResponse = Omit<Response, 'output_text'>;

/** A stream event as it travels on the wire (its `response`, where it has one, without output_text). */
export type WireStreamEvent = ResponseStreamEvent extends infer Event
  ? Event extends { response: Response }
    ? Omit<Event, 'response'> & { response: WireResponse }
    : Event
  : never;

/** Events this fake emits, without their `sequence_number`, which is added as each is sent. */
type Unnumbered<Event> = Event extends unknown ? Omit<Event, 'sequence_number'> : never;

/**
 * Serves POST /v1/responses in the OpenAI Responses wire format, streaming or not. A turn's
 * reasoning becomes a `reasoning` item (its summary, plus its signature as `encrypted_content`
 * when the request's `include` asks for `reasoning.encrypted_content`, as the API does), its text
 * a `message` item and each tool call a `function_call` item, in that order. A turn with `stop: 'length'` ends `incomplete` (reason max_output_tokens).
 */
export async function startOpenAIResponsesUpstream(
  script: Script<ResponseCreateParams>,
  options: OpenAIResponsesUpstreamOptions = {},
): Promise<OpenAIResponsesUpstream> {
  const nextTurn = scriptCursor(script);
  const cache = promptCacheOf(options.promptCache);
  const prompts: PromptRecord[] = [];

  // The responses issued, by id, with their model: what a prompt-cache comparison is made against.
  const issued = new Map<string, string>();
  const issue = (response: WireResponse, body: Record<string, unknown>): WireResponse => {
    const diagnostics = cacheDiagnostics(body, issued);
    issued.set(response.id, response.model);
    return diagnostics ? ({ ...response, prompt_cache_diagnostics: diagnostics } as WireResponse) : response;
  };

  const { origin, requests, close } = await startFakeServer(async (request, res) => {
    const pathname = new URL(request.path, 'http://fake').pathname;
    if (!authorised(request, res, options.apiKey)) return;
    if (request.method === 'POST' && pathname === '/v1/responses') return responses(request, res);
    if (request.method === 'POST' && pathname === '/v1/responses/input_tokens') return inputTokens(request, res);
    if (request.method === 'POST' && pathname === '/v1/responses/compact') return compact(request, res);
    // One OpenAI API: the model list is the one Chat Completions clients read.
    if (request.method === 'GET' && pathname === '/v1/models') {
      const data = (options.models ?? ['gpt-5', 'gpt-4.1']).map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'system' }));
      return sendJson(res, 200, { object: 'list', data }, requestIdHeader());
    }
    sendError(res, 404, `Invalid URL (${request.method} ${pathname})`, 'invalid_request_error', null);
  });

  /** https://platform.openai.com/docs/api-reference/responses/input-tokens: about four characters a token here. */
  function inputTokens(request: RecordedRequest, res: ServerResponse): void {
    if (!isObject(request.body) || typeof request.body.model !== 'string') return sendError(res, 400, "Missing required parameter: 'model'.", 'invalid_request_error', 'model');
    const { input, instructions, tools } = request.body;
    const text = JSON.stringify([input ?? '', instructions ?? '', tools ?? []]);
    sendJson(res, 200, { object: 'response.input_tokens', input_tokens: Math.ceil(text.length / 4) }, requestIdHeader());
  }

  /** https://platform.openai.com/docs/api-reference/responses/compact: the user's messages kept, the rest as one opaque compaction item. */
  function compact(request: RecordedRequest, res: ServerResponse): void {
    if (!isObject(request.body) || typeof request.body.model !== 'string') return sendError(res, 400, "Missing required parameter: 'model'.", 'invalid_request_error', 'model');
    const input: unknown[] = Array.isArray(request.body.input) ? request.body.input : [{ role: 'user', content: String(request.body.input ?? '') }];
    const kept = input.filter((item) => isObject(item) && item.role === 'user');
    const output = [...kept, { type: 'compaction', id: randomId('cmp_'), encrypted_content: Buffer.from(JSON.stringify(input)).toString('base64') }];
    sendJson(res, 200, { id: randomId('resp_'), object: 'response.compaction', created_at: Math.floor(Date.now() / 1000), output, usage: { input_tokens: Math.ceil(JSON.stringify(input).length / 4), output_tokens: 1, total_tokens: Math.ceil(JSON.stringify(input).length / 4) + 1 } }, requestIdHeader());
  }

  async function responses(request: RecordedRequest, res: ServerResponse): Promise<void> {
    const body = request.body;
    if (!isObject(body)) {
      return sendError(res, 400, 'We could not parse the JSON body of your request. The OpenAI API expects a JSON payload.', 'invalid_request_error', null);
    }
    if (typeof body.model !== 'string') {
      return sendError(res, 400, "Missing required parameter: 'model'.", 'invalid_request_error', 'missing_required_parameter', 'model');
    }
    if (body.input === undefined && body.previous_response_id === undefined && body.prompt === undefined) {
      return sendError(res, 400, "Missing required parameter: 'input'.", 'invalid_request_error', 'missing_required_parameter', 'input');
    }
    // What the model's catalog row refuses, as OpenAI refuses it (openai-model-rules.ts).
    const refused = cacheControlRefusal(body, 'responses');
    if (refused) return sendError(res, 400, refused.message, 'invalid_request_error', 'invalid_parameter', refused.param);
    const params = body as ResponseCreateParams;
    const turn = await nextTurn(params);
    const headers = { ...requestIdHeader(), ...turn.headers };
    if (turn.status !== undefined && (turn.status < 200 || turn.status > 299)) {
      return sendJson(res, turn.status, turn.errorBody ?? defaultError(turn.status), headers);
    }
    const prompt = cache && cachedPrompt(cache, request, body);
    if (prompt) prompts.push(prompt);
    if (params.stream) return streamResponse(res, turn, params, headers, prompt);
    sendJson(res, turn.status ?? 200, issue(finalResponse(turn, params, buildOutput(turn, params), prompt), body), headers);
  }

  async function streamResponse(res: ServerResponse, turn: ScriptedTurn, params: ResponseCreateParams, headers: Record<string, string>, prompt?: PromptRecord) {
    const sse = openEventStream(res, headers, options);
    let sequence = 0;
    const send = (event: Unnumbered<WireStreamEvent>) => {
      const numbered = { ...event, sequence_number: sequence++ } as WireStreamEvent;
      return sse.frame(`event: ${numbered.type}\ndata: ${JSON.stringify(numbered)}\n\n`);
    };
    const output = buildOutput(turn, params);
    // Usage, cache reads included, arrives with response.completed (or response.incomplete).
    const done = issue(finalResponse(turn, params, output, prompt), params as unknown as Record<string, unknown>);
    // The response so far: no output and no usage yet (`usage: null`, as OpenAI sends it).
    const opening = { ...done, status: 'in_progress', output: [], incomplete_details: null, completed_at: null, usage: null } as unknown as WireResponse;

    await send({ type: 'response.created', response: opening });
    await send({ type: 'response.in_progress', response: opening });
    let toolIndex = 0;
    for (const [outputIndex, item] of output.entries()) {
      if (item.type === 'web_search_call') {
        // A search's life: added (in progress, action without its query yet), in_progress, searching, completed, done.
        const where = { item_id: item.id, output_index: outputIndex };
        await send({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', action: { type: 'search' } } as any });
        await send({ type: 'response.web_search_call.in_progress', ...where } as any);
        await send({ type: 'response.web_search_call.searching', ...where } as any);
        await send({ type: 'response.web_search_call.completed', ...where } as any);
      } else if (item.type === 'reasoning') {
        await send({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, summary: [] } });
        for (const [summaryIndex, summary] of item.summary.entries()) {
          const where = { item_id: item.id, output_index: outputIndex, summary_index: summaryIndex };
          await send({ type: 'response.reasoning_summary_part.added', ...where, part: { type: 'summary_text', text: '' } });
          for (const piece of splitText(summary.text, turn.chunkSize)) {
            await send({ type: 'response.reasoning_summary_text.delta', ...where, delta: piece });
          }
          await send({ type: 'response.reasoning_summary_text.done', ...where, text: summary.text });
          await send({ type: 'response.reasoning_summary_part.done', ...where, part: { type: 'summary_text', text: summary.text } });
        }
      } else if (item.type === 'message') {
        await send({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
        for (const [contentIndex, part] of item.content.entries()) {
          if (part.type !== 'output_text') continue;
          const where = { item_id: item.id, output_index: outputIndex, content_index: contentIndex };
          await send({ type: 'response.content_part.added', ...where, part: { ...part, text: '' } });
          for (const piece of splitText(part.text, turn.chunkSize)) {
            await send({ type: 'response.output_text.delta', ...where, delta: piece, logprobs: [] });
          }
          for (const [annotationIndex, annotation] of part.annotations.entries()) {
            await send({ type: 'response.output_text.annotation.added', ...where, annotation_index: annotationIndex, annotation });
          }
          await send({ type: 'response.output_text.done', ...where, text: part.text, logprobs: [] });
          await send({ type: 'response.content_part.done', ...where, part });
        }
      } else if (item.type === 'function_call') {
        await send({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
        const where = { item_id: item.id!, output_index: outputIndex };
        // Stream the scripted arguments verbatim, so a malformed JSON string reaches the client as is.
        const args = argumentsJson(turn.toolCalls![toolIndex++]!);
        for (const piece of splitText(args, turn.chunkSize)) await send({ type: 'response.function_call_arguments.delta', ...where, delta: piece });
        await send({ type: 'response.function_call_arguments.done', ...where, arguments: args, name: item.name });
      }
      await send({ type: 'response.output_item.done', output_index: outputIndex, item });
    }
    await send(done.status === 'incomplete' ? { type: 'response.incomplete', response: done } : { type: 'response.completed', response: done });
    sse.end();
  }

  return { url: `${origin}/v1`, requests, prompts, close };
}

/** The prompt as OpenAI caches it: per organisation (the key), model and prompt_cache_key. */
function cachedPrompt(cache: PromptCache, request: RecordedRequest, body: Record<string, any>): PromptRecord {
  const cacheKey = typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : undefined;
  const scope = PromptCache.scope('openai', credentialOf(request.headers), body.model, cacheKey);
  return automaticCache(cache, scope, body.model, openAIResponsesParts(body), openAIRules(body.prompt_cache_retention), cacheKey);
}

/** Output items in the order the API produces them: reasoning, the message, then function calls. */
function buildOutput(turn: ScriptedTurn, params: ResponseCreateParams): ResponseOutputItem[] {
  const output: ResponseOutputItem[] = [];
  const incomplete = stopReason(turn) === 'length';
  if (turn.reasoning) {
    const reasoning: ResponseReasoningItem = {
      id: randomId('rs_', 48),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: turn.reasoning.text }],
      ...(params.include?.includes('reasoning.encrypted_content') ? { encrypted_content: turn.reasoning.signature ?? defaultSignature(turn.reasoning.text) } : {}),
    };
    output.push(reasoning);
  }
  // Web search, when scripted and offered: https://platform.openai.com/docs/guides/tools-web-search
  const tool = (params.tools ?? []).find((candidate) => candidate.type === 'web_search' || candidate.type === 'web_search_preview') as any;
  const query = turn.webSearch?.query ?? lastUserText(params.input);
  const found = turn.webSearch && tool ? fakeSearch(query, { allowedDomains: tool.filters?.allowed_domains }) : undefined;
  if (found) {
    // The pages found are listed only when the request includes them.
    const sources = params.include?.includes('web_search_call.action.sources') ? { sources: found.map((result) => ({ type: 'url' as const, url: result.url })) } : {};
    output.push({ id: randomId('ws_', 48), type: 'web_search_call', status: 'completed', action: { type: 'search', query, ...sources } } as ResponseOutputItem);
  }
  if (turn.text !== undefined) {
    const cited = found?.[0];
    const annotations = cited ? [{ type: 'url_citation' as const, url: cited.url, title: cited.title, start_index: 0, end_index: turn.text.length }] : [];
    const text: ResponseOutputText = { type: 'output_text', text: turn.text, annotations, logprobs: [] };
    const message: ResponseOutputMessage = {
      id: randomId('msg_', 48),
      type: 'message',
      role: 'assistant',
      status: incomplete ? 'incomplete' : 'completed',
      content: [text],
    };
    output.push(message);
  }
  for (const call of turn.toolCalls ?? []) {
    const item: ResponseFunctionToolCall = {
      id: randomId('fc_', 48),
      type: 'function_call',
      status: 'completed',
      call_id: call.id ?? randomId('call_'),
      name: call.name,
      arguments: argumentsJson(call),
    };
    output.push(item);
  }
  return output;
}

/**
 * Settings every OpenAI response echoes beyond the SDK type's, null or their default when the
 * request left them out; OpenAI stores a response unless asked not to, and says which it did.
 */
function echoedSettings(params: ResponseCreateParams): Record<string, unknown> {
  const asked = params as unknown as Record<string, unknown>;
  return {
    store: asked.store ?? true,
    presence_penalty: asked.presence_penalty ?? 0,
    frequency_penalty: asked.frequency_penalty ?? 0,
    top_logprobs: asked.top_logprobs ?? 0,
    max_tool_calls: asked.max_tool_calls ?? null,
    safety_identifier: asked.safety_identifier ?? null,
    prompt_cache_key: asked.prompt_cache_key ?? null,
  };
}

function finalResponse(turn: ScriptedTurn, params: ResponseCreateParams, output: ResponseOutputItem[], prompt?: PromptRecord): WireResponse {
  const incomplete = stopReason(turn) === 'length';
  const created = Math.floor(Date.now() / 1000);
  return {
    id: randomId('resp_', 48),
    object: 'response',
    created_at: created,
    status: incomplete ? 'incomplete' : 'completed',
    background: false,
    completed_at: incomplete ? null : created,
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: params.instructions ?? null,
    max_output_tokens: params.max_output_tokens ?? null,
    model: params.model ?? 'unknown',
    output,
    parallel_tool_calls: params.parallel_tool_calls ?? true,
    previous_response_id: params.previous_response_id ?? null,
    reasoning: { effort: params.reasoning?.effort ?? null, summary: null },
    service_tier: 'default',
    ...echoedSettings(params),
    temperature: params.temperature ?? 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: params.tool_choice ?? 'auto',
    // Function tools echoed whole: what the request left out is null, strict is on unless turned off.
    tools: (params.tools ?? []).map((tool) => (tool.type === 'function' ? { ...tool, description: tool.description ?? null, parameters: tool.parameters ?? null, strict: tool.strict ?? true } : tool)),
    top_p: params.top_p ?? 1,
    truncation: 'disabled',
    usage: usage(turn, params, prompt),
    metadata: params.metadata ?? {},
    ...(turn.responsesExtra as object),
  };
}

/** Cache reads are `input_tokens_details.cached_tokens`, within input_tokens. */
function usage(turn: ScriptedTurn, params: ResponseCreateParams, prompt?: PromptRecord): ResponseUsage {
  const { input, output, cached } = usageFor(turn, params.input, prompt);
  const reasoning = turn.reasoning ? Math.min(output, Math.ceil(turn.reasoning.text.length / 4)) : 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached, cache_write_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: input + output,
  };
}
