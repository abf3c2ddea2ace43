import type { ServerResponse } from 'node:http';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
  ChatCompletionMessage,
  ChatCompletionMessageFunctionToolCall,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { Model } from 'openai/resources/models';
import { isObject, openEventStream, sendJson, startFakeServer, type FakeServerOptions, type FakeUpstream, type RecordedRequest } from './fake-server.js';
import { argumentsJson, randomId, scriptCursor, splitText, stopReason, usageFor, type Script, type ScriptedTurn } from './scripted-turn.js';
import { authorised, defaultError, requestIdHeader, sendError } from './openai-errors.js';
import { automaticCache, openAIRules } from './automatic-prompt-cache.js';
import { PromptCache, credentialOf, promptCacheOf, type PromptCacheOption, type PromptRecord } from './prompt-cache.js';
import { openAIChatParts } from './prompt-parts.js';
import { anthropicCache } from './anthropic-prompt-cache.js';
import { chatBreakpointPrompt } from './chat-breakpoint-cache.js';
import { cacheControlRefusal } from './openai-model-rules.js';

export interface OpenAIChatUpstreamOptions extends FakeServerOptions, PromptCacheOption {
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Ids served by GET /v1/models. */
  models?: string[];
  /**
   * How `promptCache` caches: 'automatic' as OpenAI does (the default), or 'breakpoints' as a
   * provider serving Anthropic's models behind the Chat format (OpenRouter): only where
   * `cache_control` marks a content part, refusing more than four (chat-breakpoint-cache.ts).
   */
  promptCacheRules?: 'automatic' | 'breakpoints';
}

/** `url` is the base URL ending in /v1, as OpenAI clients expect. */
export interface OpenAIChatUpstream extends FakeUpstream {
  /** Each completed request's prompt and what the prompt cache did with it (none unless `promptCache`). */
  prompts: PromptRecord[];
}

// DeepSeek and vLLM put reasoning beside the content; the OpenAI SDK types do not know the field.
type MessageWithReasoning = ChatCompletionMessage & { reasoning_content?: string };
type DeltaWithReasoning = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string };

/** Serves POST /v1/chat/completions and GET /v1/models in OpenAI's wire format. */
export async function startOpenAIChatUpstream(
  script: Script<ChatCompletionCreateParams>,
  options: OpenAIChatUpstreamOptions = {},
): Promise<OpenAIChatUpstream> {
  const nextTurn = scriptCursor(script);
  const models = options.models ?? ['gpt-4o-mini', 'gpt-4o'];
  const cache = promptCacheOf(options.promptCache);
  const prompts: PromptRecord[] = [];
  const reportsWrites = options.promptCacheRules === 'breakpoints';

  const { origin, requests, close } = await startFakeServer(async (request, res) => {
    const pathname = new URL(request.path, 'http://fake').pathname;
    if (!authorised(request, res, options.apiKey)) return;
    if (request.method === 'GET' && pathname === '/v1/models') {
      const data: Model[] = models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'system' }));
      return sendJson(res, 200, { object: 'list', data }, requestIdHeader());
    }
    if (request.method === 'POST' && pathname === '/v1/chat/completions') return completions(request, res);
    sendError(res, 404, `Invalid URL (${request.method} ${pathname})`, 'invalid_request_error', null);
  });

  async function completions(request: RecordedRequest, res: ServerResponse): Promise<void> {
    const body = request.body;
    if (!isObject(body)) {
      return sendError(res, 400, 'We could not parse the JSON body of your request. The OpenAI API expects a JSON payload.', 'invalid_request_error', null);
    }
    if (typeof body.model !== 'string') return sendError(res, 400, 'you must provide a model parameter', 'invalid_request_error', null);
    if (!Array.isArray(body.messages)) {
      return sendError(res, 400, "Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter', 'messages');
    }
    // What the model's catalog row refuses, as OpenAI refuses it (openai-model-rules.ts).
    const refused = cacheControlRefusal(body, 'chat');
    if (refused) return sendError(res, 400, refused.message, 'invalid_request_error', 'invalid_parameter', refused.param);
    const breakpoints = cache && options.promptCacheRules === 'breakpoints' ? chatBreakpointPrompt(body) : undefined;
    if (breakpoints?.problem) return sendError(res, 400, breakpoints.problem, 'invalid_request_error', null);
    const params = body as ChatCompletionCreateParams;
    const turn = await nextTurn(params);
    const headers = { ...requestIdHeader(), ...turn.headers };
    if (turn.status !== undefined && (turn.status < 200 || turn.status > 299)) {
      return sendJson(res, turn.status, turn.errorBody ?? defaultError(turn.status), headers);
    }
    const prompt =
      cache &&
      (breakpoints
        ? anthropicCache(cache, PromptCache.scope('anthropic-via-chat', credentialOf(request.headers), body.model), body.model, breakpoints)
        : cachedPrompt(cache, request, body));
    if (prompt) prompts.push(prompt);
    if (params.stream) return streamCompletion(res, turn, params, headers, prompt);
    sendJson(res, turn.status ?? 200, completion(turn, params, prompt, reportsWrites), headers);
  }

  async function streamCompletion(res: ServerResponse, turn: ScriptedTurn, params: ChatCompletionCreateParams, headers: Record<string, string>, prompt?: PromptRecord) {
    const sse = openEventStream(res, headers, options);
    const includeUsage = params.stream_options?.include_usage === true;
    const base = {
      id: randomId('chatcmpl-'),
      object: 'chat.completion.chunk' as const,
      created: Math.floor(Date.now() / 1000),
      model: params.model,
      service_tier: 'default' as const,
      system_fingerprint: 'fp_fake',
      // With include_usage every chunk carries usage: null until the final usage chunk.
      ...(includeUsage ? { usage: null } : {}),
    };
    const send = (chunk: ChatCompletionChunk) => sse.frame(`data: ${JSON.stringify(chunk)}\n\n`);
    const delta = (d: DeltaWithReasoning, finish: ChatCompletionChunk.Choice['finish_reason'] = null) =>
      send({ ...base, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] });

    await delta({ role: 'assistant', content: '', refusal: null });
    for (const piece of splitText(turn.reasoning?.text ?? '', turn.chunkSize)) await delta({ reasoning_content: piece });
    for (const piece of splitText(turn.text ?? '', turn.chunkSize)) await delta({ content: piece });
    for (const [index, call] of (turn.toolCalls ?? []).entries()) {
      const id = call.id ?? randomId('call_');
      await delta({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] });
      for (const piece of splitText(argumentsJson(call), turn.chunkSize)) {
        await delta({ tool_calls: [{ index, function: { arguments: piece } }] });
      }
    }
    await delta({}, stopReason(turn));
    if (includeUsage) await send({ ...base, choices: [], usage: usage(turn, params, prompt, reportsWrites) });
    await sse.frame('data: [DONE]\n\n');
    sse.end();
  }

  return { url: `${origin}/v1`, requests, prompts, close };
}

/** The prompt as OpenAI caches it: per organisation (the key), model and prompt_cache_key. */
function cachedPrompt(cache: PromptCache, request: RecordedRequest, body: Record<string, any>): PromptRecord {
  const cacheKey = typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : undefined;
  const scope = PromptCache.scope('openai', credentialOf(request.headers), body.model, cacheKey);
  return automaticCache(cache, scope, body.model, openAIChatParts(body), openAIRules(body.prompt_cache_retention), cacheKey);
}

function completion(turn: ScriptedTurn, params: ChatCompletionCreateParams, prompt?: PromptRecord, reportsWrites = false): ChatCompletion {
  const toolCalls: ChatCompletionMessageFunctionToolCall[] = (turn.toolCalls ?? []).map((call) => ({
    id: call.id ?? randomId('call_'),
    type: 'function',
    function: { name: call.name, arguments: argumentsJson(call) },
  }));
  const message: MessageWithReasoning = {
    role: 'assistant',
    content: turn.text ?? (toolCalls.length ? null : ''),
    refusal: null,
    annotations: [],
    ...(turn.reasoning ? { reasoning_content: turn.reasoning.text } : {}),
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
  };
  return {
    id: randomId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: params.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: stopReason(turn) }],
    usage: usage(turn, params, prompt, reportsWrites),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

/** Cache reads are `prompt_tokens_details.cached_tokens`, within prompt_tokens. */
function usage(turn: ScriptedTurn, params: ChatCompletionCreateParams, prompt?: PromptRecord, reportsWrites = false): CompletionUsage {
  const { input, output, cached } = usageFor(turn, params.messages, prompt);
  const reasoning = turn.reasoning ? Math.min(output, Math.ceil(turn.reasoning.text.length / 4)) : 0;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    // OpenRouter reports what was written beside what was read; OpenAI writes without reporting it.
    prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0, ...(reportsWrites && prompt ? { cache_write_tokens: prompt.cacheWriteTokens } : {}) } as CompletionUsage['prompt_tokens_details'],
    completion_tokens_details: { reasoning_tokens: reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}
