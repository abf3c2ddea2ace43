import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { ClientGone } from '../core/client-signal.js';
import type { ApiRequest, ApiResponse, RequestTrace } from '../handlers/api.js';
import type { App } from '../handlers/app.js';
import { dispatch } from './dispatch.js';
import type { RouterMetrics } from './metrics.js';
import { readJsonBody } from './read-body.js';
import type { RequestLog } from './request-log.js';

export interface HttpServerOptions {
  /** Told about every finished request (after its response, off the request's path). */
  requestLog?: RequestLog;
  /** Counts requests, latency, upstream errors, tokens and open streams, and serves GET /metrics. */
  metrics?: RouterMetrics;
}

/** node:http in front of dispatch: turns sockets into ApiRequests and ApiResponses into bytes. */
export function createHttpServer(app: App, options: HttpServerOptions = {}): http.Server {
  const served = options.metrics ? options.metrics.instrument(app) : app;
  return http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    serve(served, options, req, res).catch(() => {
      // Only a failed socket write lands here; the client is gone, so there is nobody to tell.
      res.destroy();
    });
  });
}

async function serve(app: App, options: HttpServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const startedAt = performance.now();
  const gone = new ClientGone();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const method = req.method ?? 'GET';
  const { requestLog, metrics } = options;
  if (metrics && (path === '/metrics' || path === '/metrics/')) return serveMetrics(metrics, res, method);

  const trace: RequestTrace | undefined = requestLog || metrics ? {} : undefined;
  const bodies: { request?: unknown; response?: unknown } | undefined = requestLog?.logBodies ? {} : undefined;
  const request: ApiRequest = {
    method,
    path,
    headers: req.headers as Record<string, string | undefined>,
    readBody: async (limitBytes) => {
      const body = await readJsonBody(req, limitBytes);
      if (bodies) bodies.request = body;
      return body;
    },
    signal: gone,
    ...(trace ? { trace } : {}),
  };
  let status = 0;
  try {
    const response = await dispatch(app, request);
    status = response.status;
    if (bodies && 'json' in response) bodies.response = response.json;
    await writeResponse(res, response, method === 'HEAD', metrics);
  } finally {
    if (trace) {
      const latencyMs = performance.now() - startedAt;
      metrics?.observe(trace, status, latencyMs / 1000);
      requestLog?.record({
        time: Date.now(),
        requestId: trace.requestId,
        method,
        path,
        status,
        caller: trace.caller,
        format: trace.format,
        model: trace.model,
        backend: trace.backend,
        upstreamModel: trace.upstreamModel,
        attempts: trace.attempts,
        latencyMs: Math.round(latencyMs),
        inputTokens: trace.inputTokens,
        outputTokens: trace.outputTokens,
        stream: trace.stream,
        aborted: gone.aborted || undefined,
        error: trace.error,
        requestBody: bodies?.request,
        responseBody: bodies?.response,
      });
    }
  }
}

/** GET /metrics: the Prometheus exposition text; no key needed, and it holds none. */
async function serveMetrics(metrics: RouterMetrics, res: ServerResponse, method: string): Promise<void> {
  if (method !== 'GET' && method !== 'HEAD') {
    const body = JSON.stringify({ error: { message: `Method ${method} is not allowed on /metrics; use GET.`, type: 'invalid_request_error', param: null, code: 'method_not_allowed' } });
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  const text = await metrics.render();
  res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(method === 'HEAD' ? undefined : text);
}

async function writeResponse(res: ServerResponse, response: ApiResponse, headOnly: boolean, metrics?: RouterMetrics): Promise<void> {
  if ('json' in response) {
    const body = JSON.stringify(response.json);
    res.writeHead(response.status, {
      ...response.headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(headOnly ? undefined : body);
    return;
  }
  if ('empty' in response) {
    res.writeHead(response.status, response.headers);
    res.end();
    return;
  }
  res.writeHead(response.status, {
    ...response.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });
  metrics?.streamStarted();
  // Each upstream burst arrives as one piece of text. Cork on the first piece and uncork after this
  // turn of the event loop, so the headers travel with the first piece and the last piece with the
  // stream's end: a short stream costs one write, a long one a write per upstream read.
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  try {
    for await (const frame of response.sse) {
      if (res.destroyed) break;
      if (!corked) {
        corked = true;
        res.cork();
        setImmediate(uncork);
      }
      // Backpressure: a slow client pauses the stream instead of growing a buffer.
      if (!res.write(frame)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    }
  } finally {
    metrics?.streamEnded();
  }
  res.end();
}
