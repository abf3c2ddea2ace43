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
 * a socket runs one response at a time). A bad message gets an `error` event and the socket stays
 * open; closing the socket releases the upstream call in flight at once.
 */
export class SocketSession {
  private readonly conversation: SocketConversation;
  private queue: Promise<void> = Promise.resolve();
  private waiting = 0;
  private inFlight: ClientGone | undefined;
  private closed = false;
  private closeWhenIdle = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: SocketSessionOptions,
  ) {
    this.conversation = new SocketConversation(options.messageLimitBytes);
    socket.on('message', (data, isBinary) => this.take(data, isBinary));
    socket.on('close', () => this.gone());
    // A protocol error (a frame over the hard limit, bad UTF-8) closes the socket; `close` follows.
    socket.on('error', () => undefined);
  }

  /** Asks the socket to close once the turn in flight (if any) is answered: for a server that is stopping. */
  endWhenIdle(): void {
    this.closeWhenIdle = true;
    if (this.waiting === 0) this.socket.close(1001, 'The router is stopping.');
  }

  private take(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    if (this.waiting >= MAX_WAITING) {
      this.send([JSON.stringify(routerErrorEvent(new RouterError(429, 'rate_limit', `More than ${MAX_WAITING} messages wait behind the response in progress; a socket answers one response at a time.`, undefined, 'too_many_waiting')))]);
      return;
    }
    this.waiting++;
    this.queue = this.queue
      .then(() => this.answer(data, isBinary))
      .catch(() => undefined)
      .finally(() => {
        this.waiting--;
        if (this.closeWhenIdle && this.waiting === 0) this.socket.close(1001, 'The router is stopping.');
      });
  }

  private gone(): void {
    this.closed = true;
    this.conversation.forget();
    this.inFlight?.abort();
  }

  private async answer(data: RawData, isBinary: boolean): Promise<void> {
    if (this.closed) return;
    let turn: SocketTurn;
    try {
      if (isBinary) throw new RouterError(400, 'invalid_request', 'Binary messages are not taken; send each event as a JSON text message.', undefined, 'invalid_message');
      const bytes = byteLength(data);
      if (bytes > this.options.messageLimitBytes) {
        throw new RouterError(413, 'too_large', `The message is ${bytes} bytes, over the router's limit of ${this.options.messageLimitBytes} (config key server.bodyLimitBytes).`, undefined, 'request_too_large');
      }
      turn = socketTurn(text(data), this.conversation);
      if (turn.warmup) {
        this.options.authenticate();
        const id = newId('resp_');
        this.conversation.remember(id, turn.input, []);
        await this.send(warmupEvents(id, turn.body));
        return;
      }
    } catch (error) {
      await this.send([JSON.stringify(routerErrorEvent(toRouterError(error)))]);
      return;
    }
    await this.run(turn);
  }

  /** One generating turn through the server's own pipeline. */
  private async run(turn: SocketTurn): Promise<void> {
    const gone = new ClientGone();
    this.inFlight = gone;
    const bodyText = JSON.stringify(turn.body);
    const request: ApiRequest = {
      method: 'POST',
      path: '/v1/responses',
      headers: Object.keys(turn.headers).length ? { ...this.options.headers, ...turn.headers } : this.options.headers,
      readBody: async (limitBytes) => {
        // A continued conversation may outgrow what one request may carry, as its whole input would over HTTP.
        const bytes = Buffer.byteLength(bodyText);
        if (bytes > limitBytes) throw new RouterError(413, 'too_large', `The request, with the previous response's items, is ${bytes} bytes, over the router's limit of ${limitBytes} (config key server.bodyLimitBytes).`, undefined, 'request_too_large');
        return turn.body;
      },
      signal: gone,
    };
    const progress = { sent: false };
    try {
      await this.options.serveTurn(request, (response) => this.deliver(response, turn, progress));
    } catch (error) {
      // Every stream ends at its terminal event: one that broke off before it closes the socket
      // (1011), so the client never waits on a turn that will not end; before any event, the error is the answer.
      this.conversation.forget();
      if (this.closed) return;
      if (progress.sent) this.socket.close(1011, 'The response stream broke off.');
      else await this.send([JSON.stringify(routerErrorEvent(toRouterError(error)))]);
    } finally {
      this.inFlight = undefined;
    }
  }

  private async deliver(response: ApiResponse, turn: SocketTurn, progress: { sent: boolean }): Promise<void> {
    if (!('sse' in response)) {
      this.conversation.forget();
      await this.send([JSON.stringify(errorEventOf(response))]);
      return;
    }
    const frames = new SseMessages();
    // Breaking out of the loop ends the stream, which releases the upstream call (as a closed HTTP response does).
    for await (const piece of response.sse) {
      if (this.closed) break;
      const messages = frames.push(piece);
      for (const message of messages) this.note(message, turn);
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
      if (this.socket.readyState !== this.socket.OPEN) return resolve();
      messages.forEach((message, index) => this.socket.send(message, index === messages.length - 1 ? () => resolve() : undefined));
    });
  }
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
