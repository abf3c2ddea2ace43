import { resolveApiKey } from '../backends/http/resolve-api-key.js';
import { postJson, readJsonText } from '../backends/http/upstream-client.js';
import { priceProviderOf } from '../backends/registry.js';
import { invalidRequest } from '../core/errors.js';
import { estimateRequestTokens } from '../core/estimate-tokens.js';
import type { Reply } from '../core/reply.js';
import type { CanonicalRequest, TextPart } from '../core/request.js';
import { OFFLINE_BACKEND } from '../core/target.js';
import { decodeResponsesRequest } from '../formats/responses/decode-request.js';
import { responsesFormat } from '../formats/responses/responses-format.js';
import { newId } from '../formats/shared/ids.js';
import { admitAll, type Admissions } from '../policies/pipeline.js';
import { resolveChain } from '../routing/resolve-route.js';
import { costNanoUsd, priceFor } from '../usage/prices.js';
import type { ApiResponse } from './api.js';
import { policiesOf } from './app-policies.js';
import { consultRoute } from './consult-route.js';
import type { RequestContext } from './context.js';

/**
 * What the route's model is asked when the router compacts: a handoff summary, as an agent's own
 * local compaction asks for one (Codex's compact prompt says the same in its own words).
 */
export const COMPACTION_PROMPT =
  'Summarise the conversation so far for another assistant who will continue it without seeing it: the task and its goals, ' +
  'decisions and constraints, what has been done (files, commands and their results), what remains, and anything the ' +
  'user asked to keep in mind. Be concise and specific. Answer with the summary only.';

/** Put before the summary in the compacted history, so the model reading it later knows what it is. */
export const SUMMARY_PREFIX = 'Summary of the conversation so far (compacted by svc-router):\n\n';

/**
 * POST /v1/responses/compact (https://platform.openai.com/docs/api-reference/responses/compact):
 * `{model, input, instructions}` in, a `response.compaction` object out whose `output` replaces the
 * conversation's history. On a route whose first target is an OpenAI Responses upstream the request
 * goes to that upstream's own endpoint and its answer comes back as it is (an opaque `compaction`
 * item only that upstream can read). Anywhere else the router compacts with the route's model:
 * the output is the conversation's user messages, then one user message holding the model's
 * summary, items every route reads back. Codex rebuilds its history the same way when it
 * compacts locally. Every policy admits it as a completion; the summary's tokens are recorded in
 * the ledger as a request of the route (the consulted route records them), the upstream's by the
 * usage cap as a completion's are.
 */
export async function handleCompact(context: RequestContext): Promise<ApiResponse> {
  const body = await context.request.readBody(context.settings.server.bodyLimitBytes);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('body: expected a JSON object.', 'body');
  const clientBody = body as Record<string, unknown>;
  // Compaction answers in one JSON body; tools are the conversation's, not the summary's to call.
  const decoded = decodeResponsesRequest({ input: [], ...clientBody, stream: false }, { secret: context.settings.secret ?? '', headers: context.request.headers });
  const request = decoded.request;
  const trace = context.request.trace;
  if (trace) trace.model = request.model;
  const chain = resolveChain(context.settings, request.model, responsesFormat);
  // A compaction is a request to a model: every policy admits it (bounds, guardrails, rate and
  // usage caps), as a completion's would be.
  const admitting = admitAll(
    policiesOf(context.app),
    {
      request,
      stream: false,
      requestId: context.requestId,
      identity: context.identity,
      settings: context.settings,
      route: chain.route,
      targets: chain.targets,
      session: undefined,
      estimatedTokens: estimateRequestTokens(request),
      ledger: context.app.ledger,
      shared: context.app.shared,
      notices: context.app.notices,
    },
    trace,
  );
  const admitted = admitting instanceof Promise ? await admitting : admitting;
  try {
    const first = chain.targets[0];
    const upstream = first && first.backend !== OFFLINE_BACKEND ? context.settings.backends[first.backend] : undefined;
    if (first && upstream?.type === 'openai-responses') {
      // The body as the policies left it (the secrets guardrail may have masked its text), in the client's own members.
      const admittedBody = request.forwardBody?.body ?? clientBody;
      const sent = Object.fromEntries(Object.keys(clientBody).filter((key) => Object.hasOwn(admittedBody, key)).map((key) => [key, admittedBody[key]]));
      return await forwardCompaction(context, first.backend, upstream, first.upstreamModel ?? request.model, request.model, sent, admitted);
    }
    const reply = await consultRoute(context, responsesFormat, request.model, summaryRequest(request), context.request.signal);
    return { status: 200, json: compactedResponse(clientBody.input, reply) };
  } finally {
    admitted.release();
  }
}

/** The conversation, without tools, with the compaction prompt as the last user turn. */
function summaryRequest(request: CanonicalRequest): CanonicalRequest {
  const { tools: _tools, toolChoice: _choice, forwardBody: _forward, ...rest } = request;
  return { ...rest, tools: [], messages: [...request.messages, { role: 'user', content: [{ type: 'text', text: COMPACTION_PROMPT }] }] };
}

function compactedResponse(input: unknown, reply: Reply) {
  const summary = reply.content
    .filter((part): part is TextPart => part.type === 'text')
    .map((part) => part.text)
    .join('');
  return {
    id: newId('resp_'),
    object: 'response.compaction',
    created_at: Math.floor(Date.now() / 1000),
    output: [...userMessages(input), { type: 'message', role: 'user', content: [{ type: 'input_text', text: `${SUMMARY_PREFIX}${summary}` }] }],
    usage: {
      input_tokens: reply.usage.inputTokens,
      input_tokens_details: { cached_tokens: reply.usage.cachedInputTokens ?? 0 },
      output_tokens: reply.usage.outputTokens,
      output_tokens_details: { reasoning_tokens: reply.usage.reasoningTokens ?? 0 },
      total_tokens: reply.usage.inputTokens + reply.usage.outputTokens,
    },
  };
}

/** The user's own messages, kept as they were: what the summary stands beside in the new history. */
function userMessages(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  if (!Array.isArray(input)) return [];
  return input.filter((item) => {
    const entry = item as { type?: unknown; role?: unknown } | null;
    return entry !== null && typeof entry === 'object' && (entry.type === undefined || entry.type === 'message') && entry.role === 'user';
  });
}

async function forwardCompaction(
  context: RequestContext,
  name: string,
  settings: NonNullable<RequestContext['settings']['backends'][string]>,
  upstreamModel: string,
  route: string,
  clientBody: Record<string, unknown>,
  admitted: Admissions,
): Promise<ApiResponse> {
  const key = resolveApiKey(name, settings);
  const response = await postJson({
    backend: name,
    url: `${settings.baseUrl.replace(/\/+$/, '')}/responses/compact`,
    headers: { ...settings.headers, ...(key ? { authorization: `Bearer ${key}` } : {}) },
    // previous_response_id names a response the upstream never issued (as on /v1/responses).
    body: { ...withoutKey(clientBody, 'previous_response_id'), model: upstreamModel },
    signal: context.request.signal,
    secrets: key ? [key] : [],
    ...(settings.timeouts ? { timeouts: settings.timeouts } : {}),
  });
  const { text, json } = await readJsonText(name, response, context.request.signal);
  if (context.request.trace) Object.assign(context.request.trace, { backend: name, upstreamModel, attempts: 1 });
  // The upstream's compaction spends tokens like any request: settled as a completion's usage is
  // (the usage cap records it in the ledger against the reservation it holds), priced as one.
  const usage = (json as { usage?: { input_tokens?: unknown; output_tokens?: unknown } } | null)?.usage;
  const spent = { inputTokens: wholeOrZero(usage?.input_tokens), outputTokens: wholeOrZero(usage?.output_tokens) };
  const cost = costNanoUsd(spent, priceFor(context.settings.prices, name, upstreamModel, false, priceProviderOf(settings.type)));
  await admitted.settle(spent, cost, {
    request_id: context.requestId,
    sku: route,
    backend: name,
    upstream_model: upstreamModel,
    attempts: 1,
    latency_ms: 0,
    usage: { input_tokens: spent.inputTokens, output_tokens: spent.outputTokens, total_tokens: spent.inputTokens + spent.outputTokens },
  });
  return { status: 200, body: text };
}

const wholeOrZero = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0);

function withoutKey(json: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...json };
  delete copy[key];
  return copy;
}
