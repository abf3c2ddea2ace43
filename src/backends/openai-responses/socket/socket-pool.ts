import { createHash } from 'node:crypto';
import WebSocket from 'ws';
import { DEFAULT_TIMEOUTS, type BackendTimeouts } from '../../../config/settings.js';
import type { ClientSignal } from '../../../core/client-signal.js';
import { deadlines, type Deadline, type TimerWheel } from '../../../core/timer-wheel.js';
import type { SseFrame } from '../../http/sse-decoder.js';
import { createBody, newItemsAfter, replayedIdentity, settingsOf, type AnsweredTurn, type CreateBody } from './continuation.js';

/**
 * Upstream sockets in OpenAI's WebSocket mode (https://platform.openai.com/docs/guides/websocket-mode):
 * `GET {base}/responses` upgraded, each turn one `response.create` message whose answer is the
 * same events the HTTP stream carries, one JSON message each. One socket per client session,
 * one turn at a time on it (the mode runs responses one after another on a socket), kept for the
 * session's next turn, which then sends only its new input.
 */

export interface SocketPoolLimits {
  /** Sockets one backend keeps open at most; a session past it goes over HTTP. */
  maxSockets: number;
  /** A socket idle this long is closed. */
  idleMs: number;
  /** After the upstream refuses the upgrade, turns go over HTTP for this long before it is asked again. */
  refusalMs: number;
}

/** The WebSocket mode endpoint for a base URL: its /responses, over ws(s) (wss://api.openai.com/v1/responses). */
export const socketUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/responses`;

export const SOCKET_POOL_LIMITS: SocketPoolLimits = { maxSockets: 64, idleMs: 300_000, refusalMs: 600_000 };

/** One turn on a socket: its frames, as the HTTP stream's; `done` says whether the caller read it to its end. */
export interface SocketTurn {
  frames: AsyncIterable<SseFrame[]>;
  done(ended: boolean): void;
}

interface UpstreamSocket {
  ws: WebSocket;
  conversation: string;
  busy: boolean;
  last?: AnsweredTurn;
  idle?: Deadline;
}

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

export class ResponsesSocketPool {
  private readonly sockets = new Map<string, UpstreamSocket>();
  private refusedUntil = 0;

  constructor(
    private readonly url: string,
    private readonly timeouts: BackendTimeouts | undefined,
    private readonly limits: SocketPoolLimits = SOCKET_POOL_LIMITS,
    /** The clock of idle sockets, refusals and turn timeouts (a test's own). */
    private readonly wheel: TimerWheel = deadlines,
  ) {}

  /** Open sockets, for tests and the doctor. */
  get size(): number {
    return this.sockets.size;
  }

  /**
   * Starts a turn on the session's socket, opening one if needed; undefined when the turn should
   * go over HTTP (no session to keep a socket for, the session's socket busy, the pool full, the
   * upgrade refused now or lately).
   */
  async turn(session: string | undefined, headers: Record<string, string>, body: Record<string, unknown>, signal: ClientSignal): Promise<SocketTurn | undefined> {
    if (session === undefined || this.wheel.now() < this.refusedUntil || signal.aborted) return undefined;
    // The session's socket belongs to its credentials too: one caller never continues another's response.
    const conversation = createHash('sha256').update(headers.authorization ?? '').update('\0').update(session).digest('base64url');
    let socket = this.sockets.get(conversation);
    if (socket?.busy) return undefined;
    if (socket && socket.ws.readyState !== WebSocket.OPEN) {
      this.drop(socket);
      socket = undefined;
    }
    if (!socket) {
      if (this.sockets.size >= this.limits.maxSockets && !this.evictIdle()) return undefined;
      socket = await this.open(conversation, headers);
      if (!socket) return undefined;
    }
    socket.busy = true;
    socket.idle?.cancel();
    // Last used, last in the map: the first idle one found is the one idle longest.
    this.sockets.delete(conversation);
    this.sockets.set(conversation, socket);
    return this.start(socket, createBody(body), signal);
  }

  /** Closes every socket (the router is stopping). */
  close(): void {
    for (const socket of [...this.sockets.values()]) this.drop(socket);
  }

  private open(conversation: string, headers: Record<string, string>): Promise<UpstreamSocket | undefined> {
    const upgrade: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (name !== 'content-type' && name !== 'accept') upgrade[name] = value;
    const ws = new WebSocket(this.url, { headers: upgrade, perMessageDeflate: false, handshakeTimeout: this.timeouts?.connectMs ?? DEFAULT_TIMEOUTS.connectMs });
    // Errors are read where they matter (the handshake, a turn's close); an unheard one would throw.
    ws.on('error', () => undefined);
    // A kept socket never holds the process open: the router stops when its server does.
    ws.once('upgrade', (response) => response.socket.unref());
    return new Promise((resolve) => {
      ws.once('open', () => {
        const socket: UpstreamSocket = { ws, conversation, busy: false };
        this.sockets.set(conversation, socket);
        ws.once('close', () => {
          if (this.sockets.get(conversation) === socket) this.sockets.delete(conversation);
        });
        resolve(socket);
      });
      // The upstream answered the upgrade with a status: it does not serve WebSocket mode here (or not to this key); HTTP says which.
      ws.once('unexpected-response', (request, response) => {
        this.refusedUntil = this.wheel.now() + this.limits.refusalMs;
        response.resume();
        request.destroy();
        resolve(undefined);
      });
      // No connection at all: HTTP tries, and reports its own failure as a call's.
      ws.once('error', () => resolve(undefined));
    });
  }

  private start(socket: UpstreamSocket, body: CreateBody, signal: ClientSignal): SocketTurn {
    const last = socket.last;
    socket.last = undefined;
    const next = newItemsAfter(last, body);
    const fullInput = Array.isArray(body.input) ? body.input.map((item) => JSON.stringify(item)) : [];
    let delta = next !== undefined;
    const send = (): void => socket.ws.send(JSON.stringify({ type: 'response.create', ...(next && delta ? { ...body, previous_response_id: last!.responseId, input: next.items } : body) }));

    const queue: Array<SseFrame | Error> = [];
    let wake: (() => void) | undefined;
    const push = (entry: SseFrame | Error): void => {
      queue.push(entry);
      wake?.();
    };
    const idleMs = this.timeouts?.idleMs ?? DEFAULT_TIMEOUTS.idleMs;
    let idle = this.wheel.after(this.timeouts?.firstByteMs ?? DEFAULT_TIMEOUTS.firstByteMs, () => push(failure('no first event in time', 'UND_ERR_HEADERS_TIMEOUT')));
    const onMessage = (data: WebSocket.RawData): void => {
      idle.cancel();
      idle = this.wheel.after(idleMs, () => push(failure('no event in time', 'UND_ERR_BODY_TIMEOUT')));
      push({ data: Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8') });
    };
    const onClose = (code: number): void => push(failure(`closed mid-response (${code})`, 'ECONNRESET'));
    const gone = { handleEvent: (): void => push(failure('the client went away', 'ECONNRESET')) };
    socket.ws.on('message', onMessage);
    socket.ws.once('close', onClose);
    signal.addEventListener('abort', gone);
    let finished = false;

    const self = this;
    async function* frames(): AsyncGenerator<SseFrame[]> {
      try {
        send();
        let output = false;
        while (!finished) {
          while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          const batch: SseFrame[] = [];
          for (const entry of queue.splice(0)) {
            if (entry instanceof Error) {
              if (batch.length) yield batch;
              throw entry;
            }
            const event = JSON.parse(entry.data) as { type?: unknown; response?: { id?: unknown; output?: unknown }; error?: { code?: unknown; message?: unknown; param?: unknown; type?: unknown } };
            const type = typeof event.type === 'string' ? event.type : undefined;
            if (type === 'error' && delta && !output && event.error?.code === 'previous_response_not_found') {
              // The upstream lost the socket's state (a reconnect, its own eviction): the guide's remedy, the whole input again.
              delta = false;
              send();
              continue;
            }
            if (type !== 'response.created' && type !== 'response.in_progress') output = true;
            if (type === 'error' && event.error) {
              // The socket's error event nests what the HTTP stream's carries flat: passed on in the stream's shape.
              batch.push({ event: 'error', data: JSON.stringify({ type: 'error', code: event.error.code ?? null, message: event.error.message ?? 'unknown error', param: event.error.param ?? null }) });
            } else batch.push(type ? { event: type, data: entry.data } : entry);
            if (type === 'response.completed' || type === 'response.incomplete') socket.last = answered(event.response, body, fullInput);
            if (type !== undefined && TERMINAL.has(type)) {
              finished = true;
              break;
            }
          }
          if (batch.length) yield batch;
        }
      } finally {
        idle.cancel();
        socket.ws.off('message', onMessage);
        socket.ws.off('close', onClose);
        signal.removeEventListener('abort', gone);
      }
    }

    return {
      frames: frames(),
      done(ended) {
        if (ended && finished && socket.ws.readyState === WebSocket.OPEN) {
          socket.busy = false;
          socket.idle = self.wheel.after(self.limits.idleMs, () => self.drop(socket));
        } else self.drop(socket); // a response may still be running on it: no next turn can share it
      },
    };
  }

  /** Closes the socket idle longest, to make room; false when every socket is busy. */
  private evictIdle(): boolean {
    for (const socket of this.sockets.values()) {
      if (!socket.busy) {
        this.drop(socket);
        return true;
      }
    }
    return false;
  }

  private drop(socket: UpstreamSocket): void {
    socket.idle?.cancel();
    if (this.sockets.get(socket.conversation) === socket) this.sockets.delete(socket.conversation);
    socket.ws.terminate();
  }
}

/**
 * A socket's failure under the code the HTTP client's same failure has (a reset connection, a
 * first byte or a next one too late), so the client sees what a failed HTTP stream shows it.
 */
function failure(message: string, code: string): Error {
  return Object.assign(new Error(`upstream WebSocket: ${message}`), { code });
}

/** What the socket keeps of a turn the upstream answered: its response's id and output, and the turn's body. */
function answered(response: { id?: unknown; output?: unknown } | undefined, body: CreateBody, input: string[]): AnsweredTurn | undefined {
  if (typeof response?.id !== 'string' || !Array.isArray(response.output) || !Array.isArray(body.input)) return undefined;
  const output: string[] = [];
  for (const item of response.output) {
    const identity = replayedIdentity(item);
    if (identity !== undefined) output.push(identity);
  }
  return { responseId: response.id, settings: settingsOf(body), input, output };
}
