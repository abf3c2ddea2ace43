import { ClientGone } from '../../core/client-signal.js';
import type { AcceptedSteer } from './steering.js';

/** The bounds of one socket's streams: named settings (config keys server.socketStreams, server.socketTurnsPerStream, server.socketKeptBytes). */
export interface StreamBounds {
  /** Named streams one socket may open; a `response.create` naming one more gets an error event. */
  streams: number;
  /** Completed responses kept per named stream for previous_response_id. */
  turnsPerStream: number;
  /** Characters of kept conversation across the socket. */
  keptChars: number;
}

export const DEFAULT_STREAM_BOUNDS: StreamBounds = { streams: 32, turnsPerStream: 32, keptChars: 64 * 1024 * 1024 };

/**
 * One turn while it runs on a stream: what a steer or a cancel needs to know of it. `gone` is the
 * turn's own client signal, so cancelling or restarting it releases its upstream call and nothing
 * else on the socket.
 */
export class RunningTurn {
  readonly gone = new ClientGone();
  /** The response id, once its `response.created` has gone out (a steer names the response by it). */
  responseId: string | undefined;
  /** The response as `response.created` described it, for the `response.incomplete` a restart ends it with. */
  created: Record<string, unknown> | undefined;
  lastSequence = 0;
  /** Whether an output event has gone out: a steer then waits for the response to end instead of restarting it. */
  outputStarted = false;
  /** Whether a terminal event has gone out: the response takes no more steers. */
  ended = false;
  /** The terminal event's type and, when completed, its output. */
  outcome: { type: string; output?: unknown[] } | undefined;
  /** Steers accepted for this response, in the order they came, not yet committed to a successor. */
  readonly steers: AcceptedSteer[] = [];
  /** Why the router stopped it: a steer before any output restarts it, a `response.cancel` ends it. */
  stoppedFor: 'restart' | 'cancel' | undefined;

  constructor(
    readonly streamId: string | undefined,
    readonly input: readonly unknown[],
  ) {}

  stop(reason: 'restart' | 'cancel'): void {
    this.stoppedFor ??= reason;
    this.gone.abort();
  }
}

/**
 * A stream of one socket: its turns run one at a time, in the order they came (the SDK: "Requests
 * with the same stream_id are processed FIFO"), while other streams run theirs at the same time.
 */
export class StreamLane {
  queue: Promise<void> = Promise.resolve();
  waiting = 0;
  running: RunningTurn | undefined;
  /** Steers kept past their response, which stopped for client tool output: the next turn continuing `parent` on this stream takes them first. */
  pending: { parent: string; steers: AcceptedSteer[] } | undefined;

  constructor(readonly id: string | undefined) {}
}

/**
 * An event with the stream's id put in, right after its `type` when that leads (as the encoders
 * write it), else first: the event itself is not parsed again. A default-stream event is sent as it was.
 */
export function tagged(message: string, streamId: string | undefined): string {
  if (streamId === undefined || !message.startsWith('{') || message === '{}') return message;
  const field = `"stream_id":${JSON.stringify(streamId)}`;
  const front = /^\{"type":"[^"\\]{1,64}"/.exec(message);
  if (front) return `${front[0]},${field}${message.slice(front[0].length)}`;
  return `{${field},${message.slice(1)}`;
}
