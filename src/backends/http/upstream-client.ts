import { Agent, errors, type Dispatcher } from 'undici';
import { DEFAULT_TIMEOUTS, type BackendTimeouts } from '../../config/settings.js';
import { RouterError } from '../../core/errors.js';
import { errorMessageOf, parseRetryAfter, upstreamError } from './upstream-error.js';

/** Upstream URLs are few and fixed: split each once rather than on every request. */
const parsedUrls = new Map<string, { origin: string; path: string }>();

function parsedUrl(url: string): { origin: string; path: string } {
  let parsed = parsedUrls.get(url);
  if (!parsed) {
    const { origin, pathname, search } = new URL(url);
    parsed = { origin, path: pathname + search };
    parsedUrls.set(url, parsed);
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

/** Upstream error bodies beyond this are cut: enough for a message, never a memory hazard. */
const MAX_ERROR_BODY = 64 * 1024;
/** A non-streamed reply larger than this is not a chat answer; refuse it rather than buffer it. */
export const MAX_REPLY_BODY = 64 * 1024 * 1024;

export interface UpstreamRequest {
  backend: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  /** Values to scrub from any upstream text a client might see. */
  secrets: string[];
  timeouts?: BackendTimeouts;
}

/**
 * POSTs JSON upstream and returns the response once its status is known to be 2xx. Network
 * failures, timeouts and error statuses become RouterErrors (retryable ones included), never raw
 * exceptions.
 */
export async function postJson(call: UpstreamRequest): Promise<Dispatcher.ResponseData> {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...call.timeouts };
  let response: Dispatcher.ResponseData;
  try {
    const url = parsedUrl(call.url);
    response = await dispatcherFor(timeouts.connectMs).request({
      origin: url.origin,
      path: url.path,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...call.headers },
      body: JSON.stringify(call.body),
      signal: call.signal,
      headersTimeout: timeouts.firstByteMs,
      bodyTimeout: timeouts.idleMs,
    });
  } catch (error) {
    throw networkError(call.backend, error, call.signal);
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const text = await readCapped(response.body, MAX_ERROR_BODY).catch(() => '');
  let message: string | undefined;
  try {
    message = errorMessageOf(JSON.parse(text));
  } catch {
    message = text.trim().slice(0, 300) || undefined;
  }
  throw upstreamError(call.backend, response.statusCode, message, call.secrets, parseRetryAfter(response.headers));
}

export function networkError(backend: string, error: unknown, signal?: AbortSignal): RouterError {
  if (signal?.aborted) return new RouterError(499, 'invalid_request', 'The client closed the request.');
  if (error instanceof RouterError) return error;
  const code = (error as { code?: string }).code ?? '';
  if (error instanceof errors.HeadersTimeoutError) return new RouterError(504, 'upstream', `Backend '${backend}' did not answer in time.`, undefined, 'upstream_timeout');
  if (error instanceof errors.ConnectTimeoutError) return new RouterError(504, 'upstream', `Backend '${backend}' could not be connected to in time.`, undefined, 'upstream_timeout');
  if (error instanceof errors.BodyTimeoutError) return new RouterError(504, 'upstream', `Backend '${backend}' stopped sending.`, undefined, 'upstream_timeout');
  if (code === 'ECONNREFUSED') return new RouterError(502, 'upstream', `Backend '${backend}' refused the connection.`, undefined, 'upstream_unreachable');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new RouterError(502, 'upstream', `Backend '${backend}' host could not be resolved.`, undefined, 'upstream_unreachable');
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') return new RouterError(502, 'upstream', `Backend '${backend}' closed the connection.`, undefined, 'upstream_reset');
  return new RouterError(502, 'upstream', `Backend '${backend}' could not be reached (${code || 'connection failed'}).`, undefined, 'upstream_unreachable');
}

/** Reads a body as JSON, as the upstream's reply: too large or malformed is a 502, not a crash. */
export async function readJson(backend: string, response: Dispatcher.ResponseData, signal: AbortSignal): Promise<unknown> {
  const { body } = response;
  let text: string;
  try {
    // A declared length within bounds lets undici's own reader take the whole body at once.
    const declared = Number(response.headers['content-length']);
    text = declared <= MAX_REPLY_BODY ? await body.text() : await readCapped(body, MAX_REPLY_BODY + 1);
  } catch (error) {
    throw networkError(backend, error, signal);
  }
  if (Buffer.byteLength(text) > MAX_REPLY_BODY) throw new RouterError(502, 'upstream', `Backend '${backend}' sent a reply larger than ${MAX_REPLY_BODY} bytes.`);
  try {
    return JSON.parse(text);
  } catch {
    throw new RouterError(502, 'upstream', `Backend '${backend}' sent a reply that is not valid JSON.`);
  }
}

/** Reads up to `limit` bytes of a body, then stops reading (and drops the rest). */
async function readCapped(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8', 0, Math.min(size, limit));
}
