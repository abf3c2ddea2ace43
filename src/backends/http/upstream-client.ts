import { Agent } from 'undici';
import { DEFAULT_TIMEOUTS, type BackendTimeouts } from '../../config/settings.js';
import type { ClientSignal } from '../../core/client-signal.js';
import { RouterError } from '../../core/errors.js';
import { Exchange, type UpstreamResponse } from './upstream-exchange.js';
import { errorMessageOf, networkError, parseRateLimitReset, parseRetryAfter, upstreamError } from './upstream-error.js';

/** Upstream URLs are few and fixed: split each once rather than on every request. */
const parsedUrls = new Map<string, { origin: string; path: string }>();
/** A URL can carry a model name a client chose (Gemini's do): remember a bounded number. */
const MAX_PARSED_URLS = 1_000;

function parsedUrl(url: string): { origin: string; path: string } {
  let parsed = parsedUrls.get(url);
  if (!parsed) {
    const { origin, pathname, search } = new URL(url);
    parsed = { origin, path: pathname + search };
    if (parsedUrls.size < MAX_PARSED_URLS) parsedUrls.set(url, parsed);
  }
  return parsed;
}

/** Keep-alive connection pools, one per connect timeout in use (undici sets that per dispatcher). */
const dispatchers = new Map<number, Agent>();

function dispatcherFor(connectMs: number): Agent {
  let agent = dispatchers.get(connectMs);
  if (!agent) {
    // No cap on connections per upstream: a cap would queue streams behind each other.
    agent = new Agent({ keepAliveTimeout: 30_000, connect: { timeout: connectMs } });
    dispatchers.set(connectMs, agent);
  }
  return agent;
}

/** A backend's timeouts over the defaults, worked out once per settings object rather than per call. */
const mergedTimeouts = new WeakMap<BackendTimeouts, Required<BackendTimeouts>>();
function timeoutsOf(configured: BackendTimeouts | undefined): Required<BackendTimeouts> {
  if (!configured) return DEFAULT_TIMEOUTS;
  let merged = mergedTimeouts.get(configured);
  if (!merged) mergedTimeouts.set(configured, (merged = { ...DEFAULT_TIMEOUTS, ...configured }));
  return merged;
}

/** Upstream error bodies beyond this are cut: enough for a message, never a memory hazard. */
const MAX_ERROR_BODY = 64 * 1024;
/** A non-streamed reply larger than this is not a chat answer; refuse it rather than buffer it. */
export const MAX_REPLY_BODY = 64 * 1024 * 1024;

export interface UpstreamRequest {
  backend: string;
  url: string;
  headers: Record<string, string>;
  /** The headers carry the content type already (a backend's, built once per route): sent as they are. */
  typed?: boolean;
  /** JSON to send; a Buffer is sent as it is (bytes already serialised, and signed). */
  body: unknown;
  /** The body already written as JSON text (a client's own, forwarded): sent instead of `body`. */
  bodyText?: string;
  signal: ClientSignal;
  /** Values to scrub from any upstream text a client might see. */
  secrets: string[];
  timeouts?: BackendTimeouts;
}

/**
 * POSTs JSON upstream and returns the response once its status is known to be 2xx. Network
 * failures, timeouts and error statuses become RouterErrors (retryable ones included), never raw
 * exceptions. The total timeout runs until the body is read whole (readJson, or an error body);
 * reading the body as a stream ends it, and the idle timeout bounds the stream.
 */
export async function postJson(call: UpstreamRequest): Promise<UpstreamResponse> {
  const timeouts = timeoutsOf(call.timeouts);
  let response: UpstreamResponse;
  try {
    const url = parsedUrl(call.url);
    response = await new Exchange(call.backend, call.signal).limitTotal(timeouts.totalMs).limitWaits(timeouts.firstByteMs, timeouts.idleMs).start(dispatcherFor(timeouts.connectMs), {
      origin: url.origin,
      path: url.path,
      method: 'POST',
      headers: call.typed ? call.headers : { 'content-type': 'application/json', ...call.headers },
      body: Buffer.isBuffer(call.body) ? call.body : (call.bodyText ?? JSON.stringify(call.body)),
      // The exchange holds these on the deadline wheel (limitWaits): no timers of undici's per request.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  } catch (error) {
    throw networkError(call.backend, error, call.signal);
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const text = await response.body.readAll(MAX_ERROR_BODY).then(
    (body) => body.toString('utf8'),
    () => '',
  );
  let message: string | undefined;
  try {
    message = errorMessageOf(JSON.parse(text));
  } catch {
    // Whole (at most MAX_ERROR_BODY): upstreamError cuts it after redaction, so no key is cut in half.
    message = text.trim() || undefined;
  }
  throw upstreamError(call.backend, response.statusCode, message, call.secrets, parseRetryAfter(response.headers) ?? parseRateLimitReset(response.headers));
}

/** Reads a body as JSON, as the upstream's reply: too large or malformed is a 502, not a crash. */
export function readJson(backend: string, response: UpstreamResponse, signal: ClientSignal): Promise<unknown> {
  return readJsonText(backend, response, signal).then(jsonOf);
}

const jsonOf = (reply: { json: unknown }): unknown => reply.json;

/** readJson, also giving the text it parsed (for a reply forwarded as the upstream wrote it). One step: the read's own promise, no async wrapper. */
export function readJsonText(backend: string, response: UpstreamResponse, signal: ClientSignal): Promise<{ text: string; json: unknown }> {
  return response.body.readAll(MAX_REPLY_BODY + 1).then(
    (body) => parsedReply(backend, body),
    (error: unknown) => {
      throw networkError(backend, error, signal);
    },
  );
}

function parsedReply(backend: string, body: Buffer): { text: string; json: unknown } {
  if (body.length > MAX_REPLY_BODY) throw new RouterError(502, 'upstream', `Backend '${backend}' sent a reply larger than ${MAX_REPLY_BODY} bytes.`);
  // A UTF-8 byte order mark is legal before JSON text but not to JSON.parse.
  const start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  const text = body.toString('utf8', start);
  try {
    return { text, json: JSON.parse(text) };
  } catch {
    throw new RouterError(502, 'upstream', `Backend '${backend}' sent a reply that is not valid JSON.`);
  }
}
