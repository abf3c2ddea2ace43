import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { RouterError } from '../core/errors.js';
import type { RequestTrace } from '../core/request-record.js';
import { openaiErrorBody } from '../formats/openai-error.js';
import type { ApiRequest } from '../handlers/api.js';
import type { App } from '../handlers/app.js';
import { dispatch } from './dispatch.js';
import { errorHeaderLines } from './error-headers.js';
import type { HttpServerOptions, RouterServer } from './http-server.js';
import { recordRequest } from './record-request.js';
import { isWebSocketUpgrade, responsesSockets } from './responses-socket/upgrade.js';

/**
 * Responses over WebSocket on the same port (src/server/responses-socket/). Each turn on a socket
 * is served by dispatch as the POST /v1/responses it stands for and recorded like one (method `WS`
 * in the log). Another kind of upgrade (h2c) is served as the plain request it also is. Stopping
 * the server closes the sockets too: node:http no longer tracks a connection once it upgraded.
 */
export function serveUpgrades(
  server: RouterServer,
  app: App,
  options: HttpServerOptions,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  addressOf?: (req: IncomingMessage) => string,
): void {
  const { requestLog, metrics } = options;
  const sockets = responsesSockets(app, {
    served: { metrics: metrics !== undefined, ui: options.ui !== undefined },
    async serveTurn(request, deliver) {
      const startedAt = performance.now();
      const trace: RequestTrace | undefined = requestLog || metrics ? {} : undefined;
      const bodies: { request?: unknown; response?: unknown } | undefined = requestLog?.logBodies ? {} : undefined;
      const turn: ApiRequest = {
        ...request,
        ...(trace ? { trace } : {}),
        readBody: bodies ? async (limitBytes) => (bodies.request = await request.readBody(limitBytes)) : request.readBody,
      };
      let status = 0;
      let streaming = false;
      try {
        const response = await dispatch(app, turn);
        status = response.status;
        if (bodies && 'json' in response) bodies.response = response.json;
        if ('sse' in response) {
          streaming = true;
          metrics?.streamStarted();
        }
        await deliver(response);
      } finally {
        if (streaming) metrics?.streamEnded();
        if (trace) recordRequest(app, options, trace, bodies, { startedAt, method: 'WS', path: request.path, status, aborted: request.signal.aborted });
      }
    },
    ...(addressOf ? { addressOf } : {}),
    refused({ method, path, status, error, requestId }) {
      metrics?.observe(undefined, status, 0);
      requestLog?.record({ time: Date.now(), method, path, status, latencyMs: 0, error, requestId });
    },
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (isWebSocketUpgrade(req)) return sockets.upgrade(req, socket, head);
    servePlain(req, socket, handle);
  });
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAll();
    sockets.closeAll();
  };
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    closeIdle();
    sockets.closeIdle();
  };
}

/**
 * A request that asked for an upgrade the router does not make (h2c): answered as plain HTTP on
 * that connection, which then closes. node:http hands such a request over without its body, so
 * one that carries a body is refused with a 400 that says to drop the header.
 */
function servePlain(req: IncomingMessage, socket: Duplex, handle: (req: IncomingMessage, res: ServerResponse) => void): void {
  socket.on('error', () => socket.destroy());
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')) {
    const error = new RouterError(400, 'invalid_request', `Upgrade: ${String(req.headers.upgrade).slice(0, 40)} is not supported with a request body; send the request without the Upgrade header.`, 'upgrade');
    const body = JSON.stringify(openaiErrorBody(error));
    socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${errorHeaderLines(error)}connection: close\r\n\r\n${body}`);
    return;
  }
  const res = new http.ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.once('finish', () => {
    res.detachSocket(socket as Socket);
    socket.end();
  });
  handle(req, res);
}

