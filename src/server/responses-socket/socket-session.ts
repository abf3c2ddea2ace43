import type { RawData, WebSocket } from 'ws';
import { ClientGone } from '../../core/client-signal.js';
import { RouterError, toRouterError } from '../../core/errors.js';
import { newId } from '../../formats/shared/ids.js';
import type { ApiRequest, ApiResponse } from '../../handlers/api.js';
import { routerErrorEvent, socketErrorEvent, type SocketErrorEvent } from './socket-errors.js';
import { SocketConversation } from './socket-conversation.js';
import { SseMessages } from './sse-messages.js';
import { SocketSteers } from './socket-steers.js';
import { DEFAULT_STREAM_BOUNDS, type RunningTurn, StreamLane, tagged, type StreamBounds } from './stream-lane.js';
import { socketMessage, streamIdOf, turnOf, type SocketTurn } from './turn-body.js';
import { warmupEvents } from './warmup-reply.js';

/** What a socket needs from the server around it. */
export interface SocketSessionOptions {
  /** The upgrade request's headers: every turn is authenticated and routed with them, as an HTTP request would be. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The largest message taken (server.bodyLimitBytes when the socket opened); a larger one gets a 413 error event. */
  messageLimitBytes: number;
  /** How many streams, kept turns and kept bytes the socket allows (stream-lane.ts); the defaults when left out. */
  bounds?: Partial<StreamBounds>;
  /**
   * Serves one turn as the POST /v1/responses it stands for (the server's own dispatch, so the
   * same auth, policies, ledger, routing and translation), hands the response to `deliver`, and
   * records the request once `deliver` has finished.
   */
  serveTurn(request: ApiRequest, deliver: (response: ApiResponse) => Promise<void>): Promise<void>;
  /** Checks the key again, for a warm-up, which never reaches the pipeline; throws the 401 the pipeline would. */
  authenticate(): void;
}

/** Messages waiting behind the turn in flight on one stream; one more gets an error event (a client takes turns one at a time per stream). */
const MAX_WAITING = 16;

const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error']);
/**
 * Events that carry nothing generated yet: the response opening, and an item or content part
 * opened empty (an OpenAI Responses upstream sends these before its first token). A steer that
 * comes while only these have gone out restarts the response; any other event is output.
 */
const NOT_OUTPUT = new Set(['response.created', 'response.in_progress', 'response.queued', 'response.output_item.added', 'response.content_part.added']);

/**
 * One client's Responses socket. Each `response.create` is one turn, answered with exactly the
 * events POST /v1/responses would stream. A create may name a `stream_id` (the SDK's lanes): each
 * stream runs its turns one at a time in the order they came, streams run theirs at the same time
 * (each to its own route), every event of a stream's turn carries its `stream_id` back, and each
 * stream keeps its own responses for previous_response_id (socket-conversation.ts). Without a
 * `stream_id` the socket is one stream, as OpenAI's socket was before lanes. A `response.steer`
 * adds input to a running response and a `response.cancel` stops one stream's running
 * turn (socket-steers.ts). Cancelling, steering or failing one stream's turn never touches another's.
 *
 * Every message ends in one answer, whatever goes wrong. A message the socket cannot take (not
 * JSON, binary, too large or too deep, an unknown event, one too many in a stream's queue or one
 * stream too many) is served as the request it stands for, whose body cannot be read: the
 * server's own pipeline answers it as it answers that body over HTTP (the key checked first, then
 * the error in OpenAI's shape, which becomes the `error` event, tagged with its stream) and logs it
 * like any turn. The socket stays open after it. A frame that breaks the WebSocket protocol closes
 * the socket (ws does, with 1007/1009); it is logged the same way.
 */
export class SocketSession {
  private readonly conversation: SocketConversation;
  private readonly bounds: StreamBounds;
  private readonly lanes = new Map<string | undefined, StreamLane>([[undefined, new StreamLane(undefined)]]);
  private readonly inFlight = new Set<ClientGone>();
  private closed = false;
  private closeWhenIdle = false;
  private readonly steers: SocketSteers;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: SocketSessionOptions,
  ) {
    this.bounds = { ...DEFAULT_STREAM_BOUNDS, ...options.bounds };
    this.conversation = new SocketConversation(options.messageLimitBytes, this.bounds);
    this.steers = new SocketSteers({
      lanes: this.lanes,
      conversation: this.conversation,
      closed: () => this.closed,
      serve: (turn, running) => this.serve(turn, running),
      send: (messages, streamId) => this.send(messages, streamId),
    });
    socket.on('message', (data, isBinary) => this.take(data, isBinary));
    socket.on('close', () => this.gone());
    // A protocol error (a frame over the hard limit, bad UTF-8): ws closes the socket (`close` follows); the log still hears of it.
    socket.on('error', (error) => void this.refuse(this.protocolError(error), undefined, false).catch(() => undefined));
  }

  /** Asks the socket to close once the turns in flight (if any) are answered: for a server that is stopping. */
  endWhenIdle(): void {
    this.closeWhenIdle = true;
    if (this.waiting() === 0) this.socket.close(1001, 'The router is stopping.');
  }

  /** Characters of conversation the socket holds for previous_response_id and forks (what server.socketKeptBytes bounds). */
  get heldChars(): number {
    return this.conversation.heldChars;
  }

  private waiting(): number {
    let count = 0;
    for (const lane of this.lanes.values()) count += lane.waiting;
    return count;
  }

  private take(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    let message: Record<string, unknown>;
    let streamId: string | undefined;
    try {
      message = this.read(data, isBinary);
      streamId = streamIdOf(message);
    } catch (error) {
      // Answered in line on the default stream, as every message was before streams.
      return this.enqueue(this.lanes.get(undefined)!, () => this.refuse(error));
    }
    if (message.type === 'response.steer') return void this.steers.steer(message).catch((error) => this.broke(error));
    if (message.type === 'response.cancel') return void this.steers.cancel(message, streamId).catch((error) => this.broke(error));
    const lane = this.laneFor(streamId);
    if (!lane) {
      const error = new RouterError(429, 'rate_limit', `This socket has ${this.bounds.streams} streams open, its limit (config key server.socketStreams); reuse a stream or open another socket.`, 'stream_id', 'too_many_streams');
      return void this.refuse(error, streamId).catch((thrown) => this.broke(thrown));
    }
    this.enqueue(lane, () => this.answer(message, lane));
  }

  private laneFor(streamId: string | undefined): StreamLane | undefined {
    const known = this.lanes.get(streamId);
    if (known) return known;
    if (this.lanes.size - 1 >= this.bounds.streams) return undefined;
    const lane = new StreamLane(streamId);
    this.lanes.set(streamId, lane);
    return lane;
  }

  private enqueue(lane: StreamLane, job: () => Promise<void>): void {
    if (lane.waiting >= MAX_WAITING) {
      // Answered now, beside the turn in flight: waiting in line would defeat the bound.
      const error = new RouterError(429, 'rate_limit', `More than ${MAX_WAITING} messages wait behind the response in progress; a stream answers one response at a time.`, undefined, 'too_many_waiting');
      void this.refuse(error, lane.id).catch((thrown) => this.broke(thrown));
      return;
    }
    lane.waiting++;
    lane.queue = lane.queue
      .then(job)
      .catch((error) => this.broke(error))
      .finally(() => {
        lane.waiting--;
        if (this.closeWhenIdle && this.waiting() === 0) this.socket.close(1001, 'The router is stopping.');
      });
  }

  private gone(): void {
    this.closed = true;
    this.conversation.forgetAll();
    for (const gone of this.inFlight) gone.abort();
  }

  /**
   * The last resort, for an answer that itself failed (a fault in the router, not in the message):
   * the client is not left waiting on a turn that will not end, the socket closes (1011).
   */
  private broke(_error: unknown): void {
    if (!this.closed) this.socket.close(1011, 'The router failed to answer.');
  }

  private async answer(message: Record<string, unknown>, lane: StreamLane): Promise<void> {
    if (this.closed) return;
    let turn: SocketTurn;
    try {
      this.steers.takePending(message, lane);
      turn = turnOf(message, this.conversation);
      if (turn.warmup) {
        this.options.authenticate();
        const id = newId('resp_');
        this.conversation.remember(id, turn.input, [], lane.id);
        await this.send(warmupEvents(id, turn.body), lane.id);
        return;
      }
    } catch (error) {
      return this.refuse(error, lane.id);
    }
    await this.steers.run(turn, lane);
  }

  /** A message as a JSON object of a type the socket takes; throws the error (a RouterError, 4xx) its request would get for its body. */
  private read(data: RawData, isBinary: boolean): Record<string, unknown> {
    if (isBinary) throw new RouterError(400, 'invalid_request', 'Binary messages are not taken; send each event as a JSON text message.', undefined, 'invalid_message');
    const bytes = byteLength(data);
    if (bytes > this.options.messageLimitBytes) {
      throw new RouterError(413, 'too_large', `The message is ${bytes} bytes, over the router's limit of ${this.options.messageLimitBytes} (config key server.bodyLimitBytes).`, undefined, 'request_too_large');
    }
    return socketMessage(text(data));
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
  private refuse(error: unknown, streamId?: string, tracked = true): Promise<void> {
    const unreadable = async (): Promise<never> => {
      throw error;
    };
    return this.serveRequest(undefined, undefined, unreadable, streamId, tracked);
  }

  private serve(turn: SocketTurn, running: RunningTurn): Promise<void> {
    return this.serveRequest(turn, running, (limitBytes) => bodyOf(turn, limitBytes), running.streamId, true);
  }

  /** One request through the server's own pipeline: a generating turn, or a refusal (no turn, its body unreadable). */
  private async serveRequest(turn: SocketTurn | undefined, running: RunningTurn | undefined, readBody: ApiRequest['readBody'], streamId: string | undefined, tracked: boolean): Promise<void> {
    const gone = running?.gone ?? new ClientGone();
    if (tracked) this.inFlight.add(gone);
    const progress = { sent: false };
    try {
      const headers = turn && Object.keys(turn.headers).length ? { ...this.options.headers, ...turn.headers } : this.options.headers;
      const request: ApiRequest = { method: 'POST', path: '/v1/responses', headers, readBody, signal: gone };
      await this.options.serveTurn(request, (response) => this.deliver(response, turn, running, progress, streamId));
    } catch (error) {
      if (turn) this.conversation.forget(streamId);
      // A turn the router stopped (a steer's restart, a cancel) is ended by run(), not here.
      if (this.closed || running?.stoppedFor) return;
      if (running) running.outcome = { type: 'error' };
      // Every stream ends at its terminal event. One that broke off after its first event ends with
      // an error event on its stream; on a socket that never opened a named stream it closes the
      // socket (1011) as it always has, so the client never waits on a turn that will not end.
      // Before any event, the error is the answer.
      if (progress.sent && this.lanes.size === 1) this.socket.close(1011, 'The response stream broke off.');
      else if (progress.sent) await this.send([JSON.stringify(routerErrorEvent(new RouterError(502, 'upstream', 'The response stream broke off.', undefined, 'stream_broke_off')))], streamId);
      else await this.send([JSON.stringify(routerErrorEvent(toRouterError(error)))], streamId);
    } finally {
      this.inFlight.delete(gone);
    }
  }

  private async deliver(response: ApiResponse, turn: SocketTurn | undefined, running: RunningTurn | undefined, progress: { sent: boolean }, streamId: string | undefined): Promise<void> {
    if (!('sse' in response)) {
      if (running?.stoppedFor) return;
      if (turn) this.conversation.forget(streamId);
      if (running) running.outcome = { type: 'error' };
      await this.send([JSON.stringify(errorEventOf(response))], streamId);
      return;
    }
    const frames = new SseMessages();
    // Breaking out of the loop ends the stream, which releases the upstream call (as a closed HTTP response does).
    for await (const piece of response.sse) {
      if (this.closed || running?.gone.aborted) break;
      const messages = frames.push(piece);
      if (turn && running) for (const message of messages) this.note(message, turn, running);
      if (messages.length === 0) continue;
      progress.sent = true;
      await this.send(messages, streamId);
    }
  }

  /**
   * What a turn's events mean: for the socket's memory (a completed response is remembered on its
   * stream, a failed one forgets the stream's), and for steering (the response's id, whether
   * output has started, whether it has ended).
   */
  private note(message: string, turn: SocketTurn, running: RunningTurn): void {
    const type = eventType(message);
    if (type === undefined) return;
    const sequence = /"sequence_number":(\d{1,15})/.exec(message);
    if (sequence) running.lastSequence = Number(sequence[1]);
    if (type === 'response.created') {
      const response = (JSON.parse(message) as { response?: Record<string, unknown> }).response;
      if (typeof response?.id === 'string') running.responseId = response.id;
      running.created = response;
      return;
    }
    if (!TERMINAL.has(type)) {
      if (!NOT_OUTPUT.has(type)) running.outputStarted = true;
      return;
    }
    running.ended = true;
    running.outcome = { type };
    if (type === 'response.completed') {
      const event = JSON.parse(message) as { response?: { id?: unknown; output?: unknown } };
      const { id, output } = event.response ?? {};
      if (typeof id === 'string' && Array.isArray(output)) {
        running.outcome.output = output;
        this.conversation.remember(id, turn.input, output, running.streamId);
      } else this.conversation.forget(running.streamId);
    } else this.conversation.forget(running.streamId);
  }

  /** Sends the messages in order, tagged with their stream; resolves once the last has been handed to the socket (a slow reader holds the stream back). */
  private send(messages: string[], streamId?: string): Promise<void> {
    return new Promise((resolve) => {
      if (messages.length === 0 || this.socket.readyState !== this.socket.OPEN) return resolve();
      messages.forEach((message, index) => this.socket.send(tagged(message, streamId), index === messages.length - 1 ? () => resolve() : undefined));
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
