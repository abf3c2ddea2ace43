import { Agent, errors, request, type Dispatcher } from 'undici';
import { RouterError } from '../../core/errors.js';
import { errorMessageOf, upstreamError } from './upstream-error.js';

/** One keep-alive connection pool per upstream origin, shared by every backend in the process. */
const dispatcher = new Agent({
  keepAliveTimeout: 30_000,
  connections: 256,
  connect: { timeout: 10_000 },
  headersTimeout: 120_000,
  bodyTimeout: 300_000,
});

/** Upstream error bodies beyond this are cut: enough for a message, never a memory hazard. */
const MAX_ERROR_BODY = 64 * 1024;

export interface UpstreamRequest {
  backend: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  /** Values to scrub from any upstream text a client might see. */
  secrets: string[];
}

/**
 * POSTs JSON upstream and returns the response once its status is known to be 2xx. Network
 * failures and error statuses become RouterErrors (retryable ones included), never raw exceptions.
 */
export async function postJson(call: UpstreamRequest): Promise<Dispatcher.ResponseData> {
  let response: Dispatcher.ResponseData;
  try {
    response = await request(call.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...call.headers },
      body: JSON.stringify(call.body),
      signal: call.signal,
      dispatcher,
    });
  } catch (error) {
    throw networkError(call.backend, error, call.signal);
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const text = await readCapped(response.body, MAX_ERROR_BODY);
  let message: string | undefined;
  try {
    message = errorMessageOf(JSON.parse(text));
  } catch {
    message = text.trim().slice(0, 300) || undefined;
  }
  throw upstreamError(call.backend, response.statusCode, message, call.secrets);
}

export function networkError(backend: string, error: unknown, signal?: AbortSignal): RouterError {
  if (signal?.aborted) return new RouterError(499, 'invalid_request', 'The client closed the request.');
  if (error instanceof RouterError) return error;
  const code = (error as { code?: string }).code ?? '';
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.ConnectTimeoutError) {
    return new RouterError(504, 'upstream', `Backend '${backend}' timed out.`);
  }
  if (error instanceof errors.BodyTimeoutError) return new RouterError(504, 'upstream', `Backend '${backend}' stopped sending.`);
  if (code === 'ECONNREFUSED') return new RouterError(502, 'upstream', `Backend '${backend}' refused the connection.`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new RouterError(502, 'upstream', `Backend '${backend}' host could not be resolved.`);
  return new RouterError(502, 'upstream', `Backend '${backend}' could not be reached (${code || 'connection failed'}).`);
}

/** Reads a body as JSON, as the upstream's reply; malformed JSON is a 502, not a crash. */
export async function readJson(backend: string, body: Dispatcher.ResponseData['body'], signal: AbortSignal): Promise<unknown> {
  let text: string;
  try {
    text = await body.text();
  } catch (error) {
    throw networkError(backend, error, signal);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new RouterError(502, 'upstream', `Backend '${backend}' sent a reply that is not valid JSON.`);
  }
}

async function readCapped(body: AsyncIterable<Buffer>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) break;
    }
  } catch {
    // A failing error body still yields the status; the message is a courtesy.
  }
  return Buffer.concat(chunks).toString('utf8', 0, Math.min(size, limit));
}
