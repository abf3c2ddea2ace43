import { resolveApiKey } from '../backends/http/resolve-api-key.js';
import { postJson, readJson } from '../backends/http/upstream-client.js';
import { RouterError } from '../core/errors.js';
import { estimateRequestTokens } from '../core/estimate-tokens.js';
import type { CanonicalRequest } from '../core/request.js';
import { warningHeader } from '../core/warnings.js';
import type { BackendSettings } from '../config/settings.js';
import { decodeMessagesRequest } from '../formats/messages/decode-request.js';
import { messagesFormat } from '../formats/messages/messages-format.js';
import type { ClientFormat } from '../formats/client-format.js';
import { decodeResponsesRequest } from '../formats/responses/decode-request.js';
import { responsesFormat } from '../formats/responses/responses-format.js';
import { resolveChain } from '../routing/resolve-route.js';
import { OFFLINE_BACKEND, type Target } from '../core/target.js';
import { admitAll, countingPolicies } from '../policies/pipeline.js';
import type { PolicyInput } from '../policies/policy.js';
import type { ApiResponse } from './api.js';
import { policiesOf } from './app-policies.js';
import type { RequestContext } from './context.js';

/** The fields Anthropic's count_tokens accepts besides `model`; the rest of a messages body is left out. */
const COUNTED_FIELDS = ['messages', 'system', 'tools', 'tool_choice', 'thinking', 'mcp_servers', 'context_management'] as const;

/** Response header that tells where the count came from: `upstream` or `estimate`. */
const COUNT_SOURCE_HEADER = 'x-svc-count-source';

/**
 * POST /v1/messages/count_tokens, in Anthropic's shape. When the route's first target's server
 * counts tokens the count is its own: an Anthropic backend's count_tokens, an OpenAI Responses
 * backend's `/responses/input_tokens`, an OpenAI Chat backend's `/chat/completions/input_tokens`
 * where the server has one (llama.cpp's does), a Gemini backend's `:countTokens`. Otherwise (and when that upstream is down, rate
 * limited or has no such endpoint) it is the router's estimate of the canonical request, about four
 * characters a token, the same figure the offline backend reports as input tokens. Nothing is billed.
 */
export async function handleCountTokens(context: RequestContext): Promise<ApiResponse> {
  const body = await context.request.readBody(context.settings.server.bodyLimitBytes);
  // A messages body without the output cap, which counting does not need.
  const withCap = body !== null && typeof body === 'object' && !Array.isArray(body) ? { max_tokens: 1, ...body } : body;
  const decoded = decodeMessagesRequest(withCap);
  const { count, headers, contextManagement } = await countDecoded(context, decoded.request, messagesFormat, decoded.options.originalInputTokens);
  return { status: 200, headers, json: { input_tokens: count, ...(contextManagement ? { context_management: contextManagement } : {}) } };
}

/**
 * POST /v1/responses/input_tokens, in OpenAI's shape (`{object: "response.input_tokens",
 * input_tokens}`: https://platform.openai.com/docs/api-reference/responses/input-tokens), counted
 * as count_tokens is: by the route's upstream where it counts, else estimated. `input` may be left
 * out there (a count of instructions and tools alone).
 */
export async function handleResponsesInputTokens(context: RequestContext): Promise<ApiResponse> {
  const body = await context.request.readBody(context.settings.server.bodyLimitBytes);
  const withInput = body !== null && typeof body === 'object' && !Array.isArray(body) ? { input: [], ...body, stream: false } : body;
  const decoded = decodeResponsesRequest(withInput, { secret: context.settings.secret ?? '', headers: context.request.headers });
  const { count, headers } = await countDecoded(context, decoded.request, responsesFormat);
  return { status: 200, headers, json: { object: 'response.input_tokens', input_tokens: count } };
}

/**
 * A format's own token counting (a route that `serves: 'count'`, e.g. Gemini's `:countTokens`):
 * the body decoded as the request it counts, counted as count_tokens is (by the route's upstream
 * where it counts, else estimated), and answered in the format's shape.
 */
export async function handleFormatCount(context: RequestContext, format: ClientFormat): Promise<ApiResponse> {
  const counter = format.count;
  if (!counter) throw new RouterError(404, 'not_found', `The ${format.name} format counts no tokens.`, undefined, 'not_found');
  const body = await context.request.readBody(context.settings.server.bodyLimitBytes);
  const request = counter.decode(body, {
    secret: context.settings.secret ?? '',
    headers: context.request.headers,
    params: context.params ?? {},
    query: new URLSearchParams(context.request.query ?? ''),
  });
  const { count, headers } = await countDecoded(context, request, format);
  return { status: 200, headers, json: counter.reply(count, request) };
}

/** A count, where it came from, and (Messages) what context editing left out of it. */
interface Counted {
  count: number;
  headers: Record<string, string>;
  /**
   * Anthropic's answer to a count with context edits: `{original_input_tokens}`, the count before
   * them (https://platform.claude.com/docs/en/build-with-claude/context-editing#token-counting),
   * from the upstream that edited or from the router's estimate before its own edits.
   */
  contextManagement?: Record<string, unknown>;
}

/**
 * The count of a decoded request on its route, past the policies that look at what a request
 * holds. `originalInputTokens`: the estimate before the router's context edits, when it made some.
 */
async function countDecoded(context: RequestContext, request: CanonicalRequest, format: ClientFormat, originalInputTokens?: number): Promise<Counted> {
  const model = request.model;
  const trace = context.request.trace;
  if (trace) trace.model = model;
  const chain = resolveChain(context.settings, model, format);
  const targets = chain.targets;
  // What a request holds is checked here as for a completion (its bounds, the secrets guardrail):
  // a count's request reaches an upstream too. Nothing is billed, so every admission is released.
  const admitting = admitAll(countingPolicies(policiesOf(context.app)), countInput(context, request, chain.route, chain.targets), trace);
  const admitted = admitting instanceof Promise ? await admitting : admitting;
  try {
    return await count(context, request, model, targets, originalInputTokens);
  } finally {
    admitted.release();
  }
}

/** What the policies see of a count: the request, never streamed, routed as a completion to its model would be. */
function countInput(context: RequestContext, request: CanonicalRequest, route: string | undefined, targets: readonly Target[]): PolicyInput {
  return {
    request,
    stream: false,
    requestId: context.requestId,
    identity: context.identity,
    settings: context.settings,
    route,
    targets,
    // A count is neither answered nor billed: no session's spending is at stake.
    session: undefined,
    estimatedTokens: estimateRequestTokens(request),
    ledger: context.app.ledger,
    shared: context.app.shared,
    notices: context.app.notices,
  };
}

async function count(context: RequestContext, request: CanonicalRequest, model: string, targets: Target[], originalInputTokens: number | undefined): Promise<Counted> {
  const trace = context.request.trace;
  // What a policy said of the request (a guardrail's finding) reaches a count's client too.
  const headers = (source: string): Record<string, string> => {
    const warning = warningHeader(request);
    return { [COUNT_SOURCE_HEADER]: source, ...(warning !== undefined ? { 'x-svc-warning': warning } : {}) };
  };

  const first = targets[0];
  const upstream = first && first.backend !== OFFLINE_BACKEND ? context.settings.backends[first.backend] : undefined;
  if (first && upstream) {
    const upstreamModel = first.upstreamModel ?? model;
    try {
      // An Anthropic upstream edits the context itself and says what the prompt was before: its answer passes whole.
      const counted: { input_tokens: number; context_management?: Record<string, unknown> } | undefined =
        upstream.type === 'anthropic'
          ? await countUpstream(context, first.backend, upstream, upstreamModel, await anthropicCountFields(request, upstreamModel, upstream.anthropicVersion ?? context.request.headers['anthropic-version'] ?? context.request.headers['vendor-version']))
          : await (upstream.type === 'gemini' ? countGeminiUpstream : countOpenAIUpstream)(context, first.backend, upstream, upstreamModel, request).then((tokens) =>
              tokens === undefined ? undefined : { input_tokens: tokens },
            );
      if (counted !== undefined) {
        if (trace) Object.assign(trace, { backend: first.backend, upstreamModel, attempts: 1, inputTokens: counted.input_tokens });
        return { count: counted.input_tokens, headers: headers('upstream'), ...(counted.context_management ? { contextManagement: counted.context_management } : {}) };
      }
    } catch (error) {
      // A client mistake the upstream caught is the client's to see; an outage falls back to the estimate.
      if (!(error instanceof RouterError && error.retryable) || context.request.signal.aborted) throw error;
    }
  }
  const estimate = estimateRequestTokens(request);
  if (trace) Object.assign(trace, { backend: 'estimate', inputTokens: estimate });
  return { count: estimate, headers: headers('estimate'), ...(originalInputTokens !== undefined ? { contextManagement: { original_input_tokens: originalInputTokens } } : {}) };
}

/**
 * The body fields an Anthropic count takes: a Messages client's own, or the router's Anthropic
 * encoding of another format's request; either as the model takes it (a forced tool choice, which
 * count_tokens refuses as the Messages API does on the models that refuse it, goes as `auto`).
 */
async function anthropicCountFields(request: CanonicalRequest, upstreamModel: string, version: string | undefined): Promise<Record<string, unknown>> {
  const { encodeAnthropicRequest } = await import('../backends/anthropic/encode-request.js');
  return encodeAnthropicRequest(request, upstreamModel, false, { counting: true, ...(version ? { version } : {}) }) as unknown as Record<string, unknown>;
}

/** Servers found without a count endpoint (404 or 405), by type and base URL: estimated without asking again until then. */
const withoutCountEndpoint = new Map<string, number>();
const NO_ENDPOINT_MS = 10 * 60_000;
/** Keyed by configured backends, not client input; bounded anyway, as the config can change while serving. */
const MAX_REMEMBERED = 256;

/**
 * The count of an OpenAI-type server, or undefined (estimate) when its type or the server has no
 * count endpoint. The body is the router's own translation, so anything the server refuses in it
 * is estimated rather than shown to the client as its mistake.
 */
async function countOpenAIUpstream(context: RequestContext, name: string, settings: BackendSettings, upstreamModel: string, request: CanonicalRequest): Promise<number | undefined> {
  const endpoint = await countEndpoint(settings.type, request, upstreamModel);
  if (!endpoint) return undefined;
  const remembered = `${settings.type}\u0000${settings.baseUrl}`;
  const until = withoutCountEndpoint.get(remembered);
  if (until !== undefined && until > Date.now()) return undefined;
  const key = resolveApiKey(name, settings);
  try {
    const response = await postJson({
      backend: name,
      url: `${settings.baseUrl.replace(/\/+$/, '')}${endpoint.path}`,
      headers: { ...settings.headers, ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: endpoint.body,
      signal: context.request.signal,
      secrets: key ? [key] : [],
      ...(settings.timeouts ? { timeouts: settings.timeouts } : {}),
    });
    return wholeCount(name, await readJson(name, response, context.request.signal));
  } catch (error) {
    if (context.request.signal.aborted || !(error instanceof RouterError)) throw error;
    if (error.code === 'upstream_not_found' || String(error.cause).startsWith('HTTP 405')) {
      if (withoutCountEndpoint.size >= MAX_REMEMBERED) withoutCountEndpoint.clear();
      withoutCountEndpoint.set(remembered, Date.now() + NO_ENDPOINT_MS);
    }
    return undefined;
  }
}

/**
 * The count of a Gemini upstream (`models/{model}:countTokens`, with the key in x-goog-api-key),
 * or undefined (estimate) when the backend would not send this request. Its failures are handled
 * as an Anthropic count's are: a client mistake is the client's, an outage falls back to the estimate.
 */
async function countGeminiUpstream(context: RequestContext, name: string, settings: BackendSettings, upstreamModel: string, request: CanonicalRequest): Promise<number | undefined> {
  const { geminiCountRequest, geminiTotalTokens } = await import('../backends/gemini/count-request.js');
  const key = resolveApiKey(name, settings);
  const call = geminiCountRequest(settings.baseUrl, settings.apiVersion, key, upstreamModel, request);
  if (!call) return undefined;
  const response = await postJson({
    backend: name,
    url: call.url,
    headers: { ...settings.headers, ...call.headers },
    body: call.body,
    signal: context.request.signal,
    secrets: key ? [key] : [],
    ...(settings.timeouts ? { timeouts: settings.timeouts } : {}),
  });
  const total = geminiTotalTokens(await readJson(name, response, context.request.signal));
  if (total === undefined) throw new RouterError(502, 'upstream', `Backend '${name}' answered countTokens without a whole totalTokens count.`);
  return total;
}

/** The path and body of a backend type's count endpoint, or undefined when it has none or cannot take this request. */
async function countEndpoint(type: BackendSettings['type'], request: CanonicalRequest, upstreamModel: string): Promise<{ path: string; body: unknown } | undefined> {
  try {
    // Each backend's encoder loads only when a count goes to a backend of its type.
    if (type === 'openai-responses') {
      const { RESPONSES_COUNT_PATH, responsesCountBody } = await import('../backends/openai-responses/count-request.js');
      return { path: RESPONSES_COUNT_PATH, body: responsesCountBody(request, upstreamModel) };
    }
    if (type === 'openai-chat') {
      const { CHAT_COUNT_PATH, chatCountBody } = await import('../backends/openai-chat/count-request.js');
      return { path: CHAT_COUNT_PATH, body: chatCountBody(request, upstreamModel) };
    }
  } catch {
    // Content this backend's encoder refuses: the estimate counts it.
  }
  return undefined;
}

function wholeCount(name: string, reply: unknown): number {
  const count = (reply as { input_tokens?: unknown } | null)?.input_tokens;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw new RouterError(502, 'upstream', `Backend '${name}' answered count_tokens without a whole input_tokens count.`);
  }
  return count;
}

/** The upstream's count, with its `context_management` (the count before its edits) when it sent one. */
async function countUpstream(
  context: RequestContext,
  name: string,
  settings: BackendSettings,
  upstreamModel: string,
  clientBody: Record<string, unknown>,
): Promise<{ input_tokens: number; context_management?: Record<string, unknown> }> {
  // The Anthropic backend's module loads only when a count goes to an Anthropic upstream.
  const { anthropicAuth, forwardedProtocolHeaders } = await import('../backends/anthropic/upstream-headers.js');
  const key = resolveApiKey(name, settings);
  const { headers } = context.request;
  const body: Record<string, unknown> = { model: upstreamModel };
  for (const field of COUNTED_FIELDS) if (clientBody[field] !== undefined) body[field] = clientBody[field];
  // The client's body, so its version and betas as a forwarded Messages call has them.
  const client = { 'anthropic-version': headers['anthropic-version'] ?? headers['vendor-version'], 'anthropic-beta': headers['anthropic-beta'] };
  const response = await postJson({
    backend: name,
    url: `${settings.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/messages/count_tokens`,
    // Configured headers first, as on every call: they add to the protocol and auth headers but never replace them.
    headers: { ...settings.headers, ...forwardedProtocolHeaders(settings, client), ...anthropicAuth(settings, key) },
    body,
    signal: context.request.signal,
    secrets: key ? [key] : [],
    ...(settings.timeouts ? { timeouts: settings.timeouts } : {}),
  });
  const reply = await readJson(name, response, context.request.signal);
  const managed = (reply as { context_management?: unknown } | null)?.context_management;
  const contextManagement = managed !== null && typeof managed === 'object' && !Array.isArray(managed) ? { context_management: managed as Record<string, unknown> } : {};
  return { input_tokens: wholeCount(name, reply), ...contextManagement };
}
