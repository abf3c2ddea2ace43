import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { parseSse } from '../helpers/sse-frames.js';
import { startOpenAIResponsesUpstream, type OpenAIResponsesUpstream } from './openai-responses-upstream.js';
import type { Script } from './scripted-turn.js';

/**
 * An OpenAI Responses upstream that also serves WebSocket mode
 * (https://platform.openai.com/docs/guides/websocket-mode): `GET /v1/responses` upgraded, each
 * `response.create` message answered with the HTTP stream's events, one JSON message each. The
 * socket keeps its last response: a create naming it with `previous_response_id` continues it
 * (its input, its output, then the new items), naming any other is `previous_response_not_found`.
 * The model behind both doors is one startOpenAIResponsesUpstream, asked with the whole input, so
 * a turn answers the same whichever door it came by. HTTP requests pass to it as they are.
 */

export interface SocketUpstreamOptions {
  apiKey?: string;
  /** Answers the upgrade with this status instead (an upstream without WebSocket mode). */
  refuseUpgrade?: number;
  /** Stops sending after this many events of the turn with this 0-based index, until the socket closes. */
  hold?: { turn: number; afterEvents: number };
  /** Keeps no response on a socket (a socket whose state the upstream lost): every continuation is previous_response_not_found. */
  forget?: boolean;
  /** Cuts the connection after this many events of the turn with this 0-based index (counted per door: creates on sockets, POSTs over HTTP). */
  dropAt?: { turn: number; afterEvents: number };
}

/** One `response.create` as received: its bytes, its message, and the whole input it stood for. */
export interface SocketTurnRecord {
  socket: number;
  bytes: number;
  message: Record<string, any>;
  wholeInput: unknown[];
}

export interface SocketUpstream {
  /** Base URL ending in /v1. */
  url: string;
  /** The model behind both doors: its `requests` are every turn with its whole input. */
  model: OpenAIResponsesUpstream;
  turns: SocketTurnRecord[];
  /** Upgrades asked for (refused ones included), and sockets opened. */
  upgrades: number;
  sockets: number;
  /** Resolves when a `hold` is reached, and whether the router then closed that socket. */
  held: Promise<void>;
  closedWhileHeld: Promise<void>;
  /** The codes of the error events sent. */
  failures: string[];
  /** HTTP requests to /v1/responses, with the bytes of each body. */
  httpBodies: number[];
  close(): Promise<void>;
}

export async function startOpenAIResponsesSocketUpstream(script: Script<ResponseCreateParams>, options: SocketUpstreamOptions = {}): Promise<SocketUpstream> {
  const model = await startOpenAIResponsesUpstream(script, options.apiKey ? { apiKey: options.apiKey } : {});
  const turns: SocketTurnRecord[] = [];
  const httpBodies: number[] = [];
  const failures: string[] = [];
  let reached!: () => void;
  let closed!: () => void;
  const held = new Promise<void>((resolve) => (reached = resolve));
  const closedWhileHeld = new Promise<void>((resolve) => (closed = resolve));
  const state = { upgrades: 0, sockets: 0 };

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (req.url?.startsWith('/v1/responses')) httpBodies.push(body.length);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
    const answer = await fetch(`${model.url.replace(/\/v1$/, '')}${req.url}`, { method: req.method!, headers, ...(body.length ? { body } : {}) });
    if (req.url === '/v1/responses' && options.dropAt?.turn === httpBodies.length - 1) {
      res.writeHead(answer.status, { 'content-type': 'text/event-stream' });
      const frames = (await answer.text()).split('\n\n').slice(0, options.dropAt.afterEvents);
      res.write(frames.map((frame) => `${frame}\n\n`).join(''));
      await new Promise((resolve) => setImmediate(resolve));
      res.destroy();
      return;
    }
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  const sockets = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    state.upgrades++;
    const refuse = (status: number, message: string) => {
      const text = JSON.stringify({ error: { message, type: 'invalid_request_error', code: null, param: null } });
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
    };
    if (options.refuseUpgrade) return refuse(options.refuseUpgrade, 'WebSocket mode is not served here.');
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) return refuse(401, 'Incorrect API key provided.');
    if (new URL(req.url ?? '/', 'http://fake').pathname !== '/v1/responses') return refuse(404, 'Invalid URL');
    sockets.handleUpgrade(req, socket, head, (ws) => serve(ws, state.sockets++));
  });

  /** One socket: its last response (id, whole input, output), one create at a time. */
  function serve(ws: WebSocket, index: number): void {
    let last: { id: string; input: unknown[]; output: unknown[] } | undefined;
    let queue = Promise.resolve();
    ws.on('message', (data) => {
      const text = data.toString();
      queue = queue.then(() => create(text)).catch(() => ws.terminate());
    });
    const fail = (code: string, message: string): void => {
      failures.push(code);
      ws.send(JSON.stringify({ type: 'error', status: 400, error: { type: 'invalid_request_error', code, message, param: null } }));
    };
    async function create(text: string): Promise<void> {
      const { type, ...body } = JSON.parse(text) as Record<string, any>;
      if (type !== 'response.create') return fail('unknown_event', `Unknown event type '${String(type)}'.`);
      const own = Array.isArray(body.input) ? body.input : [{ role: 'user', content: String(body.input ?? '') }];
      let wholeInput = own;
      if (body.previous_response_id !== undefined) {
        if (!last || body.previous_response_id !== last.id) return fail('previous_response_not_found', `Previous response with id '${body.previous_response_id}' not found.`);
        wholeInput = [...last.input, ...last.output, ...own];
      }
      const turn = turns.length;
      turns.push({ socket: index, bytes: Buffer.byteLength(text), message: { type, ...body }, wholeInput });
      last = undefined;
      const { previous_response_id: _, ...rest } = body;
      const answer = await fetch(`${model.url}/responses`, { method: 'POST', headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) }, body: JSON.stringify({ ...rest, input: wholeInput, stream: true }) });
      let sent = 0;
      for (const frame of parseSse(await answer.text())) {
        if (options.dropAt?.turn === turn && sent === options.dropAt.afterEvents) return ws.terminate();
        if (options.hold?.turn === turn && sent === options.hold.afterEvents) {
          reached();
          if (ws.readyState !== ws.CLOSED) await new Promise((resolve) => ws.once('close', resolve));
          closed();
          return;
        }
        const event = JSON.parse(frame.data) as { type: string; response?: { id: string; output: unknown[] } };
        if ((event.type === 'response.completed' || event.type === 'response.incomplete') && !options.forget) last = { id: event.response!.id, input: wholeInput, output: event.response!.output };
        ws.send(frame.data);
        sent++;
      }
    }
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/v1`,
    model,
    turns,
    get upgrades() {
      return state.upgrades;
    },
    get sockets() {
      return state.sockets;
    },
    httpBodies,
    failures,
    held,
    closedWhileHeld,
    async close() {
      for (const client of sockets.clients) client.terminate();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await model.close();
    },
  };
}
