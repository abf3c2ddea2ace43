import type { RawData, WebSocket } from 'ws';
import { ClientGone } from '../../core/client-signal.js';
import { RouterError, toRouterError } from '../../core/errors.js';
import { newId } from '../../formats/shared/ids.js';
import type { ApiRequest, ApiResponse } from '../../handlers/api.js';
import { routerErrorEvent, socketErrorEvent, type SocketErrorEvent } from './socket-errors.js';
import { SocketConversation } from './socket-conversation.js';
import { SseMessages } from './sse-messages.js';
import { socketTurn, type SocketTurn } from './turn-body.js';
import { warmupEvents } from './warmup-reply.js';

/** What a socket needs from the server around it. */
export interface SocketSessionOptions {
  /** The upgrade request's headers: every turn is authenticated and routed with them, as an HTTP request would be. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The largest message taken (server.bodyLimitBytes when the socket opened); a larger one gets a 413 error event. */
  messageLimitBytes: number;
  /**
   * Serves one turn as the POST /v1/responses it stands for (the server's own dispatch, so the
   * same auth, policies, ledger, routing and translation), hands the response to `deliver`, and
   * records the request once `deliver` has finished.
   */
  serveTurn(request: ApiRequest, deliver: (response: ApiResponse) => Promise<void>): Promise<void>;
  /** Checks the key again, for a warm-up, which never reaches the pipeline; throws the 401 the pipeline would. */
  authenticate(): void;
}

/** Messages waiting behind the turn in flight; one more gets an error event (a client takes turns one at a time). */
const MAX_WAITING = 16;

/**
 * One client's Responses socket: each `response.create` is one turn, answered with exactly the
 * events POST /v1/responses would stream, one turn at a time in the order they came (OpenAI:
 * a socket runs one response at a time); closing the socket releases the upstream call in flight
 * at once.
 *
 * Every message ends in one answer and one request log line, whatever goes wrong. A message the
 * socket cannot take (not JSON, binary, too large or too deep, an unknown event, one too many in
 * the queue) is served as the request it stands for, whose body cannot be read: the server's own
 * pipeline answers it as it answers that body over HTTP (the key checked first, then the error in
 * OpenAI's shape, which becomes the `error` event) and logs it like any turn, under one request
 * id. The socket stays open after it. A frame that breaks the WebSocket protocol closes the socket
 * (ws does, with 1007/1009); it is logged the same way.
 */
export class SocketSession {
  private readonly conversation: SocketConversation;
  private queue: Promise<void> = Promise.resolve();
  private waiting = 0;
  private readonly inFlight = new Set<ClientGone>();
  private closed = false;
  private closeWhenIdle = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: SocketSessionOptions,
  ) {
    this.conversation = new SocketConversation(options.messageLimitBytes);
    socket.on('message', (data, isBinary) => this.take(data, isBinary));
    socket.on('close', () => this.gone());
    // A protocol error (a frame over the hard limit, bad UTF-8): ws closes the socket (`close` follows); the log still hears of it.
    socket.on('error', (error) => void this.refuse(this.protocolError(error), false).catch(() => undefined));
  }

  /** Asks the socket to close once the turn in flight (if any) is answered: for a server that is stopping. */
  endWhenIdle(): void {
    this.closeWhenIdle = true;
    if (this.waiting === 0) this.socket.close(1001, 'The router is stopping.');
  }

  private take(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    if (this.waiting >= MAX_WAITING) {
      // Answered now, beside the turn in flight: waiting in line would defeat the bound.
      const error = new RouterError(429, 'rate_limit', `More than ${MAX_WAITING} messages wait behind the response in progress; a socket answers one response at a time.`, undefined, 'too_many_waiting');
      void this.refuse(error).catch((thrown) => this.broke(thrown));
      return;
    }
    this.waiting++;
    this.queue = this.queue
      .then(() => this.answer(data, isBinary))
      .catch((error) => this.broke(error))
      .finally(() => {
        this.waiting--;
        if (this.closeWhenIdle && this.waiting === 0) this.socket.close(1001, 'The router is stopping.');
      });
  }

  private gone(): void {
    this.closed = true;
    this.conversation.forget();
    for (const gone of this.inFlight) gone.abort();
  }

  /**
   * The last resort, for an answer that itself failed (a fault in the router, not in the message):
   * the client is not left waiting on a turn that will not end, the socket closes (1011).
   */
  private broke(_error: unknown): void {
    if (!this.closed) this.socket.close(1011, 'The router failed to answer.');
  }

  private async answer(data: RawData, isBinary: boolean): Promise<void> {
    if (this.closed) return;
    let turn: SocketTurn;
    try {
      turn = this.read(data, isBinary);
      if (turn.warmup) {
        this.options.authenticate();
        const id = newId('resp_');
        this.conversation.remember(id, turn.input, []);
        await this.send(warmupEvents(id, turn.body));
        return;
      }
    } catch (error) {
      return this.refuse(error);
    }
    await this.serve(turn, (limitBytes) => bodyOf(turn, limitBytes));
  }

  /** A message as a turn; throws the error (a RouterError, 4xx) its request would get for its body. */
  private read(data: RawData, isBinary: boolean): SocketTurn {
    if (isBinary) throw new RouterError(400, 'invalid_request', 'Binary messages are not taken; send each event as a JSON text message.', undefined, 'invalid_message');
    const bytes = byteLength(data);
    if (bytes > this.options.messageLimitBytes) {
      throw new RouterError(413, 'too_large', `The message is ${bytes} bytes, over the router's limit of ${this.options.messageLimitBytes} (config key server.bodyLimitBytes).`, undefined, 'request_too_large');
    }
    return socketTurn(text(data), this.conversation);
  }

  /** What a frame that broke the protocol is logged as (ws has closed the socket already: 1009 too large, 1007 not UTF-8). */
  private protocolError(error: Error & { code?: string }): RouterError {
    if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
      return new RouterError(413, 'too_large', `A message was far over the router's limit of ${this.options.messageLimitBytes} bytes (config key server.bodyLimitBytes); the socket was closed (1009).`, undefined, 'request_too_large');
    }
    if (error.code === 'WS_ERR_INVALID_UTF8') return new RouterError(400, 'invalid_request', 'A text message was not valid UTF-8; the socket was closed (1007).', undefined, 'invalid_message');
    return new RouterError(400, 'invalid_request', `A frame broke the WebSocket protocol (${error.message.slice(0, 120)}); the socket was closed.`, undefined, 'invalid_message');
  }

  /**
   * A message that is no turn, answered through the pipeline as a request whose body cannot be
   * read (see the class comment). It leaves the socket's memory as it was. `tracked`: whether the
   * client closing aborts it (not for a frame that closed the socket itself: the client did not go).
   */
  private refuse(error: unknown, tracked = true): Promise<void> {
    const unreadable = async (): Promise<never> => {
      throw error;
    };
    return this.serve(undefined, unreadable, tracked);
  }

  /** One request through the server's own pipeline: a generating turn, or a refusal (no turn, its body unreadable). */
  private async serve(turn: SocketTurn | undefined, readBody: ApiRequest['readBody'], tracked = true): Promise<void> {
    const gone = new ClientGone();
    if (tracked) this.inFlight.add(gone);
    const progress = { sent: false };
    try {
      const headers = turn && Object.keys(turn.headers).length ? { ...this.options.headers, ...turn.headers } : this.options.headers;
      const request: ApiRequest = { method: 'POST', path: '/v1/responses', headers, readBody, signal: gone };
      await this.options.serveTurn(request, (response) => this.deliver(response, turn, progress));
    } catch (error) {
      // Every stream ends at its terminal event: one that broke off before it closes the socket
      // (1011), so the client never waits on a turn that will not end; before any event, the error is the answer.
      if (turn) this.conversation.forget();
      if (this.closed) return;
      if (progress.sent) this.socket.close(1011, 'The response stream broke off.');
      else await this.send([JSON.stringify(routerErrorEvent(toRouterError(error)))]);
    } finally {
      this.inFlight.delete(gone);
    }
  }

  private async deliver(response: ApiResponse, turn: SocketTurn | undefined, progress: { sent: boolean }): Promise<void> {
    if (!('sse' in response)) {
      if (turn) this.conversation.forget();
      await this.send([JSON.stringify(errorEventOf(response))]);
      return;
    }
    const frames = new SseMessages();
    // Breaking out of the loop ends the stream, which releases the upstream call (as a closed HTTP response does).
    for await (const piece of response.sse) {
      if (this.closed) break;
      const messages = frames.push(piece);
      if (turn) for (const message of messages) this.note(message, turn);
      if (messages.length === 0) continue;
      progress.sent = true;
      await this.send(messages);
    }
  }

  /** What a turn's events mean for the socket's memory: a completed response is remembered, a failed one forgotten. */
  private note(message: string, turn: SocketTurn): void {
    const type = eventType(message);
    if (type === 'response.completed') {
      const event = JSON.parse(message) as { response?: { id?: unknown; output?: unknown } };
      const { id, output } = event.response ?? {};
      if (typeof id === 'string' && Array.isArray(output)) this.conversation.remember(id, turn.input, output);
      else this.conversation.forget();
    } else if (type === 'error' || type === 'response.failed' || type === 'response.incomplete') {
      this.conversation.forget();
    }
  }

  /** Sends the messages in order; resolves once the last has been handed to the socket (a slow reader holds the stream back). */
  private send(messages: string[]): Promise<void> {
    return new Promise((resolve) => {
      if (messages.length === 0 || this.socket.readyState !== this.socket.OPEN) return resolve();
      messages.forEach((message, index) => this.socket.send(message, index === messages.length - 1 ? () => resolve() : undefined));
    });
  }
}

/** A turn's request body, as the endpoint reads it: a continued conversation may outgrow what one request may carry, as its whole input would over HTTP. */
async function bodyOf(turn: SocketTurn, limitBytes: number): Promise<unknown> {
  const bytes = Buffer.byteLength(JSON.stringify(turn.body));
  if (bytes > limitBytes) throw new RouterError(413, 'too_large', `The request, with the previous response's items, is ${bytes} bytes, over the router's limit of ${limitBytes} (config key server.bodyLimitBytes).`, undefined, 'request_too_large');
  return turn.body;
}

/** The `type` of an event: read from the front where the encoders put it, parsed only when it is not there. */
function eventType(message: string): string | undefined {
  const front = /^\{"type":"([^"\\]{1,64})"/.exec(message);
  if (front) return front[1];
  try {
    const parsed = JSON.parse(message) as { type?: unknown };
    return typeof parsed?.type === 'string' ? parsed.type : undefined;
  } catch {
    return undefined;
  }
}

/** A response that is not a stream: the error the endpoint answered, as the socket's error event. */
function errorEventOf(response: ApiResponse): SocketErrorEvent {
  const body = 'json' in response ? response.json : 'body' in response ? safeParse(response.body) : undefined;
  const error = (body as { error?: SocketErrorEvent['error'] } | undefined)?.error;
  if (response.status >= 400 && error && typeof error.message === 'string') return socketErrorEvent(response.status, error, response.headers);
  return routerErrorEvent(new RouterError(502, 'upstream', 'The response did not come as a stream.'));
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const byteLength = (data: RawData): number => (Array.isArray(data) ? data.reduce((sum, chunk) => sum + chunk.length, 0) : data instanceof ArrayBuffer ? data.byteLength : data.length);
const text = (data: RawData): string => (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
