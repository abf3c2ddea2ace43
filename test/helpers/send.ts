import type { TestRouter } from './router.js';

/** A router's answer as the suites read it: status, headers, the body as text and (when it parses) JSON. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  /** Milliseconds from sending to the end of the body. */
  elapsedMs: number;
}

/**
 * One request to the router that cannot hang the suite: it is aborted (and the test failed) if the
 * whole exchange, body included, takes longer than `timeoutMs`. The guard timer is cleared as soon
 * as the exchange ends, so it leaves nothing behind.
 */
export async function send(
  router: Pick<TestRouter, 'origin'>,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<Reply> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const controller = new AbortController();
  const guard = setTimeout(() => controller.abort(new Error(`request to ${path} did not finish within ${timeoutMs} ms`)), timeoutMs);
  const started = performance.now();
  try {
    const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    const response = await fetch(`${router.origin}${path}`, {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers: options.headers ?? {},
      ...(body !== undefined ? { body } : {}),
      signal: controller.signal,
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json, elapsedMs: performance.now() - started };
  } catch (error) {
    if (controller.signal.aborted) throw controller.signal.reason as Error;
    throw error;
  } finally {
    clearTimeout(guard);
  }
}
