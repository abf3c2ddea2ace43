import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DEFAULT_SETTINGS, type ServerSettings } from '../config/settings.js';
import { ClientGone } from '../core/client-signal.js';
import { RouterError } from '../core/errors.js';
import { RequestPhases } from '../core/request-phases.js';
import { deadlines } from '../core/timer-wheel.js';
import { openaiErrorBody } from '../formats/openai-error.js';
import type { RequestTrace } from '../core/request-record.js';
import type { ApiRequest, ApiResponse } from '../handlers/api.js';
import type { App } from '../handlers/app.js';
import { dispatch } from './dispatch.js';
import { errorHeaderLines, errorHeaders } from './error-headers.js';
import { HostGuard, isGuardedPath } from './host-guard.js';
import type { RouterMetrics } from './metrics.js';
import { answerClientError } from './malformed-request.js';
import { readJsonBody } from './read-body.js';
import type { Dashboard } from './dashboard/dashboard.js';
import type { RequestLog } from './request-log.js';
import { recordRequest } from './record-request.js';
import { routerAddress } from './router-address.js';
import { serveUpgrades } from './upgrades.js';

export interface HttpServerOptions {
  /** Told about every finished request (after its response, off the request's path). */
  requestLog?: RequestLog;
  /**
   * Counts requests, latency, tokens and open streams, and serves GET /metrics. Upstream errors are
   * counted by the backends the app was created with (`createApp({ wrapBackend: metrics.wrapBackend })`).
   */
  metrics?: RouterMetrics;
  /**
   * Serves the dashboard under /ui. Its live stream is fed like any request log: pass its `feed` in
   * `requestLog` (alone or fanned out with others).
   */
  ui?: Dashboard;
  /** Overrides the config's `server.*` limits (read once, when the server is created). */
  limits?: Partial<ServerLimits>;
  /** Serve HTTPS with this PEM certificate (chain) and key; plain HTTP without. */
  tls?: { cert: string | Buffer; key: string | Buffer };
}

/** The server either way: node:https's has the same HTTP surface (close, closeAllConnections, …). */
export type RouterServer = http.Server | https.Server;

/** What the server allows a client: time for headers and for a body, and open connections. */
export type ServerLimits = Pick<ServerSettings, 'bodyTimeoutMs' | 'headersTimeoutMs' | 'maxConnections'>;

/** node:http (node:https with `tls`) in front of dispatch: turns sockets into ApiRequests and ApiResponses into bytes. */
export function createHttpServer(app: App, options: HttpServerOptions & { tls: NonNullable<HttpServerOptions['tls']> }): https.Server;
export function createHttpServer(app: App, options?: HttpServerOptions & { tls?: undefined }): http.Server;
export function createHttpServer(app: App, options?: HttpServerOptions): RouterServer;
export function createHttpServer(app: App, options: HttpServerOptions = {}): RouterServer {
  const { bodyTimeoutMs, headersTimeoutMs, maxConnections } = { ...pickLimits(app.config.read().server), ...options.limits };
  const scheme = options.tls ? 'https:' : 'http:';
  const guard = new HostGuard(() => app.config.read().server.hosts, scheme);
  const addressOf = (req: IncomingMessage): string => routerAddress(req, guard, scheme);
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    serve(app, options, guard, addressOf, bodyTimeoutMs, req, res).catch(() => {
      // Only a failed socket write lands here; the client is gone, so there is nobody to tell.
      res.destroy();
    });
  };
  const httpOptions = {
    keepAliveTimeout: 65_000,
    headersTimeout: headersTimeoutMs,
    // Node's own deadline for a whole request, a backstop behind the body deadline read-body keeps
    // (which answers in the client's format); both are checked on a clock this coarse.
    requestTimeout: headersTimeoutMs + bodyTimeoutMs + 1_000,
    connectionsCheckingInterval: Math.max(10, Math.min(15_000, Math.floor(headersTimeoutMs / 4))),
  };
  if (options.tls) {
    const server = https.createServer({ ...httpOptions, cert: options.tls.cert, key: options.tls.key }, handle);
    // node:https parses HTTP on 'secureConnection', once the handshake is done: a refused client
    // then reads its 503 over TLS as it expects.
    capConnections(server, 'secureConnection', maxConnections);
    server.on('clientError', answerClientError);
    server.on('listening', () => guard.listening(server.address()));
    serveUpgrades(server, app, options, handle, addressOf);
    return server;
  }
  const server = http.createServer(httpOptions, handle);
  capConnections(server, 'connection', maxConnections);
  server.on('clientError', answerClientError);
  server.on('listening', () => guard.listening(server.address()));
  serveUpgrades(server, app, options, handle, addressOf);
  return server;
}

/** The config's limits; a value a hand-edited file got wrong (not a positive whole number) keeps its default. */
function pickLimits(settings: ServerSettings): ServerLimits {
  const pick = (name: keyof ServerLimits): number => {
    const value = settings[name];
    return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_SETTINGS.server[name];
  };
  return { bodyTimeoutMs: pick('bodyTimeoutMs'), headersTimeoutMs: pick('headersTimeoutMs'), maxConnections: pick('maxConnections') };
}

/**
 * At most `max` client connections at once. One more is not dropped silently: it is answered 503
 * (in OpenAI's error shape, as no request has been read to tell the format) with `connection:
 * close`, and closed once the client has finished sending or a second has passed. A connection
 * counts until its socket closes.
 */
function capConnections(server: RouterServer, event: 'connection' | 'secureConnection', max: number): void {
  // node:http(s) parses every socket it is handed on this event; hand it only the admitted ones.
  const parse = server.listeners(event) as Array<(socket: Socket) => void>;
  server.removeAllListeners(event);
  let open = 0;
  server.on(event, (socket: Socket) => {
    if (open >= max) return refuse(socket, max);
    open++;
    socket.once('close', () => open--);
    for (const listener of parse) listener.call(server, socket);
  });
}

const REFUSE_LINGER_MS = 1_000;

function refuse(socket: Socket, max: number): void {
  const error = new RouterError(503, 'overloaded', `The router has ${max} connections open, its limit (config key server.maxConnections); try again shortly.`, undefined, 'too_many_connections', 1_000);
  const body = JSON.stringify(openaiErrorBody(error));
  socket.on('error', () => socket.destroy());
  socket.end(`HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${errorHeaderLines(error)}connection: close\r\n\r\n${body}`);
  // Read and drop what the client still sends, so closing does not reset the answer away; then close.
  socket.resume();
  socket.once('end', () => socket.destroy());
  socket.setTimeout(REFUSE_LINGER_MS, () => socket.destroy());
}

async function serve(
  app: App,
  options: HttpServerOptions,
  guard: HostGuard,
  addressOf: (req: IncomingMessage) => string,
  bodyTimeoutMs: number,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const phases = new RequestPhases();
  const startedAt = phases.start;
  const bodyDeadline = { startedAt, ms: bodyTimeoutMs };
  let reading = false;
  let timedOut = false;
  // A body nobody reads (the answer came first) may still trickle in: drop the connection at the
  // deadline, or once the answer is out if it is not yet (a handler still loading reads the body
  // then, and read-body answers 408 in the client's format). A body already whole cannot.
  if (!req.complete) {
    const drop = () => {
      if (!req.complete && !reading) req.socket.destroy();
    };
    const backstop = deadlines.after(bodyTimeoutMs, () => (res.writableFinished ? drop() : res.once('finish', drop)));
    req.once('close', () => backstop.cancel());
  }
  const gone = new ClientGone();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const method = req.method ?? 'GET';
  const { requestLog, metrics } = options;
  if (isGuardedPath(path)) {
    const refused = guard.refusal(method, req.headers.host, header(req.headers.origin));
    if (refused) return refuseGuarded(refused, req, res, { time: startedAt, method, path, requestLog, metrics });
  }
  if (metrics && (path === '/metrics' || path === '/metrics/')) return serveMetrics(metrics, res, method);
  if (options.ui && (path === '/ui' || path.startsWith('/ui/'))) return options.ui.serve(app, req, res, path === '/ui/' ? '/ui' : path);

  const trace: RequestTrace | undefined = requestLog || metrics ? {} : undefined;
  const bodies: { request?: unknown; response?: unknown } | undefined = requestLog?.logBodies ? {} : undefined;
  const request: ApiRequest = {
    method,
    path,
    ...(query === -1 ? {} : { query: url.slice(query + 1) }),
    headers: req.headers as Record<string, string | undefined>,
    readBody: async (limitBytes) => {
      reading = true;
      try {
        const body = await readJsonBody(req, limitBytes, bodyDeadline);
        if (bodies) bodies.request = body;
        return body;
      } catch (error) {
        if (error instanceof RouterError && error.status === 408) timedOut = true;
        throw error;
      } finally {
        reading = false;
      }
    },
    signal: gone,
    origin: () => addressOf(req),
    phases,
    ...(trace ? { trace } : {}),
  };
  let status = 0;
  try {
    const response = await dispatch(app, request);
    status = response.status;
    if (bodies && 'json' in response) bodies.response = response.json;
    else if (bodies && 'body' in response) bodies.response = parsedForLog(response.body);
    // A body that did not arrive in time is not waited for: answer, then close the connection.
    phases.begin('write');
    await writeResponse(res, timedOut ? { ...response, headers: { ...response.headers, connection: 'close' } } : response, method === 'HEAD', metrics, phases);
  } finally {
    if (trace) recordRequest(app, options, trace, bodies, { startedAt, method, path, status, aborted: gone.aborted });
  }
}

/** A header node may hand over as a list (a repeated one): only a single value counts. */
const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(',') : value);

/** A guarded path refused for its Host or Origin: 403 with the reason and nothing else, logged like any request. */
function refuseGuarded(
  error: RouterError,
  req: IncomingMessage,
  res: ServerResponse,
  request: { time: number; method: string; path: string; requestLog: RequestLog | undefined; metrics: RouterMetrics | undefined },
): void {
  const body = JSON.stringify(openaiErrorBody(error));
  res.writeHead(403, {
    ...errorHeaders(error),
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // A body still on its way is not read: the connection ends with this answer, so the next request starts clean.
    ...(req.complete ? {} : { connection: 'close' }),
  });
  res.end(request.method === 'HEAD' ? undefined : body);
  const latencyMs = performance.now() - request.time;
  request.metrics?.observe(undefined, 403, latencyMs / 1000);
  request.requestLog?.record({ time: Date.now(), method: request.method, path: request.path, status: 403, latencyMs: Math.round(latencyMs), error: error.message });
}

/** A forwarded body for the request log, which redacts what it records value by value. */
function parsedForLog(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** GET /metrics: the Prometheus exposition text; no key needed, and it holds none. */
async function serveMetrics(metrics: RouterMetrics, res: ServerResponse, method: string): Promise<void> {
  if (method !== 'GET' && method !== 'HEAD') {
    const error = new RouterError(405, 'method_not_allowed', `Method ${method} is not allowed on /metrics; use GET.`, undefined, 'method_not_allowed');
    const body = JSON.stringify(openaiErrorBody(error));
    res.writeHead(405, { ...errorHeaders(error), allow: 'GET, HEAD', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  const text = await metrics.render();
  res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(method === 'HEAD' ? undefined : text);
}

async function writeResponse(res: ServerResponse, response: ApiResponse, headOnly: boolean, metrics?: RouterMetrics, phases?: RequestPhases): Promise<void> {
  if ('json' in response || 'body' in response) {
    const body = 'json' in response ? JSON.stringify(response.json) : response.body;
    res.writeHead(response.status, {
      ...response.headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(headOnly ? undefined : body);
    written(phases, metrics);
    return;
  }
  if ('empty' in response) {
    res.writeHead(response.status, response.headers);
    res.end();
    return;
  }
  // Server-sent events unless the format streams in another framing (Gemini's JSON array), whose type the response names.
  res.writeHead(response.status, {
    'content-type': 'text/event-stream; charset=utf-8',
    ...response.headers,
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });
  // A stream's write phase is its head: the rest is written as the upstream sends it.
  written(phases, metrics);
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
      if (!res.write(frame)) await drained(res);
    }
  } finally {
    metrics?.streamEnded();
  }
  res.end();
}

/** The response (a stream's head) is with the socket: the request's phases are complete, and counted once when it had them all. */
function written(phases: RequestPhases | undefined, metrics: RouterMetrics | undefined): void {
  if (!phases) return;
  phases.stop();
  if (metrics && phases.completion) metrics.observePhases(phases);
}

/**
 * Resolves when a slow client has read what was queued, or has gone. Both listeners are removed
 * either way: a long stream waits many times, and each wait must leave nothing behind.
 */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
