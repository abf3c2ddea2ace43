import { resolveApiKey } from '../backends/http/resolve-api-key.js';
import { postJson, readJson } from '../backends/http/upstream-client.js';
import { RouterError } from '../core/errors.js';
import { estimateRequestTokens } from '../core/estimate-tokens.js';
import type { BackendSettings } from '../config/settings.js';
import { decodeMessagesRequest } from '../formats/messages/decode-request.js';
import { messagesFormat } from '../formats/messages/messages-format.js';
import { resolveRoute } from '../routing/resolve-route.js';
import { OFFLINE_BACKEND } from '../core/target.js';
import type { ApiResponse } from './api.js';
import type { RequestContext } from './context.js';
import { checkRequestBounds } from './request-bounds.js';

/** The fields Anthropic's count_tokens accepts besides `model`; the rest of a messages body is left out. */
const COUNTED_FIELDS = ['messages', 'system', 'tools', 'tool_choice', 'thinking', 'mcp_servers', 'context_management'] as const;

/** Response header that tells where the count came from: `upstream` or `estimate`. */
const COUNT_SOURCE_HEADER = 'x-svc-count-source';

/**
 * POST /v1/messages/count_tokens, in Anthropic's shape. When the route's first target is an
 * Anthropic backend the count is that upstream's own; otherwise (and when that upstream is down
 * or rate limited) it is the router's estimate of the canonical request, about four characters a
 * token, the same figure the offline backend reports as input tokens. Nothing is billed.
 */
export async function handleCountTokens(context: RequestContext): Promise<ApiResponse> {
  const body = await context.request.readBody(context.settings.server.bodyLimitBytes);
  // A messages body without the output cap, which counting does not need.
  const withCap = body !== null && typeof body === 'object' && !Array.isArray(body) ? { max_tokens: 1, ...body } : body;
  const decoded = decodeMessagesRequest(withCap);
  checkRequestBounds(decoded.request);
  const model = decoded.request.model;
  const targets = resolveRoute(context.settings, model, messagesFormat);
  const trace = context.request.trace;
  if (trace) trace.model = model;

  const first = targets[0];
  const upstream = first && first.backend !== OFFLINE_BACKEND ? context.settings.backends[first.backend] : undefined;
  if (first && upstream?.type === 'anthropic') {
    try {
      const counted = await countUpstream(context, first.backend, upstream, first.upstreamModel ?? model, decoded.request.forwardBody?.body ?? {});
      if (trace) Object.assign(trace, { backend: first.backend, upstreamModel: first.upstreamModel ?? model, attempts: 1, inputTokens: counted });
      return { status: 200, headers: { [COUNT_SOURCE_HEADER]: 'upstream' }, json: { input_tokens: counted } };
    } catch (error) {
      // A client mistake the upstream caught is the client's to see; an outage falls back to the estimate.
      if (!(error instanceof RouterError && error.retryable) || context.request.signal.aborted) throw error;
    }
  }
  const estimate = estimateRequestTokens(decoded.request);
  if (trace) Object.assign(trace, { backend: 'estimate', inputTokens: estimate });
  return { status: 200, headers: { [COUNT_SOURCE_HEADER]: 'estimate' }, json: { input_tokens: estimate } };
}

async function countUpstream(context: RequestContext, name: string, settings: BackendSettings, upstreamModel: string, clientBody: Record<string, unknown>): Promise<number> {
  // The Anthropic backend's module loads only when a count goes to an Anthropic upstream.
  const { ANTHROPIC_VERSION } = await import('../backends/anthropic/anthropic-backend.js');
  const key = resolveApiKey(name, settings);
  const beta = context.request.headers['anthropic-beta'];
  const body: Record<string, unknown> = { model: upstreamModel };
  for (const field of COUNTED_FIELDS) if (clientBody[field] !== undefined) body[field] = clientBody[field];
  const response = await postJson({
    backend: name,
    url: `${settings.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/messages/count_tokens`,
    headers: {
      'anthropic-version': ANTHROPIC_VERSION,
      ...(beta ? { 'anthropic-beta': beta } : {}),
      ...settings.headers,
      ...(key ? { 'x-api-key': key } : {}),
    },
    body,
    signal: context.request.signal,
    secrets: key ? [key] : [],
    ...(settings.timeouts ? { timeouts: settings.timeouts } : {}),
  });
  const reply = (await readJson(name, response, context.request.signal)) as { input_tokens?: unknown } | null;
  const count = reply?.input_tokens;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw new RouterError(502, 'upstream', `Backend '${name}' answered count_tokens without a whole input_tokens count.`);
  }
  return count;
}
