import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { RouterError, toRouterError } from '../../core/errors.js';
import { openaiErrorBody } from '../../formats/openai-error.js';
import { responsesFormat } from '../../formats/responses/responses-format.js';
import { newId } from '../../formats/shared/ids.js';
import type { ApiRequest, ApiResponse } from '../../handlers/api.js';
import type { App } from '../../handlers/app.js';
import { authenticate, presentedKey } from '../../identity/authenticate.js';
import { corsOf } from '../cors.js';
import { errorHeaders } from '../error-headers.js';
import { noSocketAt, SOCKET_PATH, type ServedHere } from './no-socket.js';
import { answerOnSocket } from './raw-answer.js';
import { SocketSession } from './socket-session.js';

/** Whether a request asks to become a WebSocket (RFC 6455 §4.1); other upgrades (h2c) are served as plain HTTP. */
export const isWebSocketUpgrade = (req: IncomingMessage): boolean => String(req.headers.upgrade).toLowerCase() === 'websocket';

/** The paths a Responses socket opens on: the HTTP endpoint's own. */
const SOCKET_PATHS = new Set([SOCKET_PATH, `${SOCKET_PATH}/`]);

/**
 * Room above server.bodyLimitBytes for a message still read whole, so it can be answered with a
 * 413 error event on the open socket; a frame larger still closes the socket (1009, "message too
 * big", RFC 6455 §7.4.1) before its payload is read, so no socket holds more than this.
 */
const OVERSIZE_GRACE_BYTES = 1024 * 1024;

export interface ResponsesSocketsOptions {
  /** POST /v1/responses as the server serves it, for each turn (src/server/http-server.ts). */
  serveTurn(request: ApiRequest, deliver: (response: ApiResponse) => Promise<void>): Promise<void>;
  /** What the server serves over HTTP besides the API (metrics, the dashboard), for the refusal of an upgrade elsewhere. */
  served: Omit<ServedHere, 'websockets'>;
  /** Told of an upgrade that was refused, for the request log and metrics. */
  refused(request: { method: string; path: string; status: number; error: string; requestId: string }): void;
  /** The router's address as this client reaches it, for a refusal that names it (src/server/router-address.ts). */
  addressOf?(req: IncomingMessage): string;
}

export interface ResponsesSockets {
  /** The server's `upgrade` listener. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every socket at once (the server stops now). */
  closeAll(): void;
  /** Closes every socket once its turn in flight is answered (the server stops gracefully). */
  closeIdle(): void;
}

/**
 * OpenAI Responses over WebSocket on GET /v1/responses (developers.openai.com, "WebSocket mode"):
 * the upgrade is checked as a request would be (path, the `server.websockets` switch, a browser
 * origin, the key) and refused in OpenAI's error shape; an accepted socket runs each turn through
 * the server's own pipeline (socket-session.ts).
 *
 * The switch off answers 426 Upgrade Required: Codex takes that status at connect time as "this
 * provider does not speak WebSocket" and goes on over HTTP at once, where any other refusal costs
 * it a retry loop first (codex-rs core/src/client.rs, WebsocketStreamOutcome::FallbackToHttp).
 */
export function responsesSockets(app: App, options: ResponsesSocketsOptions): ResponsesSockets {
  const sessions = new Map<WebSocket, SocketSession>();
  const refuse = (socket: Duplex, method: string, path: string, error: RouterError): void => {
    const requestId = newId('req_');
    answerOnSocket(socket, error.status, openaiErrorBody(error), errorHeaders(error, requestId));
    options.refused({ method, path, status: error.status, error: error.message, requestId });
  };

  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const headers = req.headers as Record<string, string | undefined>;
    try {
      const settings = app.config.read();
      if (!SOCKET_PATHS.has(path)) throw noSocketAt(path, { ...options.served, websockets: settings.server.websockets !== false }, options.addressOf?.(req));
      if (method !== 'GET') throw new RouterError(405, 'method_not_allowed', `A WebSocket opens with GET; got ${method}.`);
      if (settings.server.websockets === false) {
        throw new RouterError(426, 'invalid_request', 'Responses over WebSocket are off on this router (config key server.websockets); send the request over HTTP (POST /v1/responses).', undefined, 'websockets_disabled');
      }
      // A browser page opens sockets to any origin without asking first: only the origins server.cors lists may.
      const origin = headers.origin;
      if (origin !== undefined && corsOf(settings.server.cors, origin)?.origin === undefined) {
        throw new RouterError(403, 'permission', `Origin ${origin.slice(0, 100)} may not open a socket here; list it in server.cors to allow it.`, undefined, 'origin_not_allowed');
      }
      const keyOf = (): void => void authenticate(app.config.read(), presentedKey(headers, responsesFormat.keySources));
      keyOf();
      const limit = settings.server.bodyLimitBytes;
      const server = new WebSocketServer({ noServer: true, clientTracking: false, maxPayload: limit + OVERSIZE_GRACE_BYTES });
      server.handleUpgrade(req, socket, head, (ws) => {
        const { socketStreams: streams, socketTurnsPerStream: turnsPerStream, socketKeptBytes: keptChars } = settings.server;
        const bounds = { streams, turnsPerStream, keptChars };
        sessions.set(ws, new SocketSession(ws, { headers, messageLimitBytes: limit, bounds, serveTurn: options.serveTurn, authenticate: keyOf }));
        ws.once('close', () => sessions.delete(ws));
      });
    } catch (error) {
      refuse(socket, method, path, toRouterError(error));
    }
  }

  return {
    upgrade,
    closeAll() {
      for (const ws of sessions.keys()) ws.terminate();
    },
    closeIdle() {
      for (const session of sessions.values()) session.endWhenIdle();
    },
  };
}
