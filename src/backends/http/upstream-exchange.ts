import { errors, type Dispatcher } from 'undici';
import type { ClientSignal } from '../../core/client-signal.js';
import { RouterError } from '../../core/errors.js';
import { deadlines, type Deadline } from '../../core/timer-wheel.js';
import { networkError } from './upstream-error.js';

/** A streamed body queued past either bound (unread by its consumer) pauses the upstream socket. */
const PAUSE_BYTES = 1024 * 1024;
const PAUSE_CHUNKS = 16;

/** An upstream reply's body, read as it arrives. Failures surface as RouterErrors. */
export interface UpstreamBody extends AsyncIterable<Buffer> {
  /** The whole body, or its first `limit` bytes once it has that many (the rest is then dropped). */
  readAll(limit: number): Promise<Buffer>;
  /** Stops the upstream request at once; does nothing once the body has ended or failed. */
  destroy(): void;
  /** The upstream's response is over (ended or failed): its connection needs nothing more from the reader. */
  readonly ended: boolean;
}

export interface UpstreamResponse {
  statusCode: number;
  /** Lower-case header names. */
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

interface Deferred<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

const END: IteratorResult<Buffer> = { value: undefined, done: true };

/**
 * One upstream call: the undici dispatch handler, and also the body its caller reads. Chunks go
 * from undici's parser straight to a waiting reader, or into a short queue; no Node stream, no
 * per-chunk events. Every failure (network, timeout, the caller's signal) is mapped once, here.
 */
export class Exchange implements Dispatcher.DispatchHandler, UpstreamBody, AsyncIterator<Buffer> {
  private controller: Dispatcher.DispatchController | null = null;
  /** Nothing more will arrive: the body ended, or the exchange failed (then `error` is set). */
  private done = false;
  private error: RouterError | null = null;
  /** Chunks received but not yet read. */
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  /** postJson, waiting for the status. */
  private started: Deferred<UpstreamResponse> | null = null;
  /** A reader waiting in next() (the queue is then empty). */
  private waiter: Deferred<IteratorResult<Buffer>> | null = null;
  /** A readAll in progress: it takes chunks as they come and never pauses the upstream. */
  private collector: (Deferred<Buffer> & { limit: number }) | null = null;
  /** The whole-exchange deadline, while it runs. */
  private deadline: Deadline | null = null;

  constructor(
    private readonly backend: string,
    private readonly signal: ClientSignal,
  ) {}

  /** Dispatches the request; resolves once the final (non-1xx) status and headers are in. */
  start(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions): Promise<UpstreamResponse> {
    return new Promise((resolve, reject) => {
      if (this.signal.aborted) {
        reject(networkError(this.backend, undefined, this.signal));
        return;
      }
      this.started = { resolve, reject };
      // `this` is the listener (handleEvent): no closure per request, and removable by identity.
      this.signal.addEventListener('abort', this);
      dispatcher.dispatch(options, this);
    });
  }

  /**
   * Bounds the whole exchange, from now until its body has been read to the end with readAll (a
   * non-streamed answer, or an error body): past `ms` it fails with a 504 and the upstream request
   * is aborted. A body read as a stream ends the deadline at its first read; the idle timeout
   * bounds a stream instead, however long the answer.
   */
  limitTotal(ms: number): this {
    this.deadline = deadlines.after(ms, () => this.expire(ms));
    return this;
  }

  private expire(ms: number): void {
    this.deadline = null;
    if (this.done) return;
    const reason = new RouterError(504, 'upstream', `Backend '${this.backend}' did not finish its answer within ${ms} ms.`, undefined, 'upstream_timeout');
    this.fail(reason);
    this.controller?.abort(reason);
  }

  private endDeadline(): void {
    if (this.deadline) {
      this.deadline.cancel();
      this.deadline = null;
    }
  }

  /** The caller's signal aborted: fail every pending read at once, then abort the request. */
  handleEvent(): void {
    if (this.done) return;
    this.fail(networkError(this.backend, undefined, this.signal));
    this.controller?.abort(new errors.RequestAbortedError());
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Aborted while still queued for a connection: stop before anything is sent.
    if (this.done) controller.abort(new errors.RequestAbortedError());
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx interim response: the real one follows
    this.controller = controller;
    const started = this.started;
    this.started = null;
    started?.resolve({ statusCode, headers, body: this });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.done) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter.resolve({ value: chunk, done: false });
      return;
    }
    this.queue.push(chunk);
    this.queuedBytes += chunk.length;
    if (this.collector) {
      if (this.queuedBytes >= this.collector.limit) this.finishCollect();
    } else if (this.queuedBytes >= PAUSE_BYTES || this.queue.length >= PAUSE_CHUNKS) {
      // The reader is behind: stop parsing, so the socket (and then the upstream) backs up.
      controller.pause();
    }
  }

  onResponseEnd(): void {
    if (this.done) return;
    this.done = true;
    this.endDeadline();
    this.signal.removeEventListener('abort', this);
    if (this.collector) this.finishCollect();
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.resolve(END);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    // Errors after a failure we caused (abort, destroy) are that failure's echo.
    if (!this.done) this.fail(networkError(this.backend, error, this.signal));
  }

  next(): Promise<IteratorResult<Buffer>> {
    if (this.deadline) this.endDeadline();
    if (this.queue.length) {
      // Everything queued goes out as one chunk: one step through the consumer's pipeline.
      const chunk = this.take(Infinity);
      this.controller?.resume(); // a no-op unless the queue had paused the upstream
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.error) return Promise.reject(this.error);
    if (this.done) return Promise.resolve(END);
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** The consumer stopped early (a `break` out of for-await). */
  return(): Promise<IteratorResult<Buffer>> {
    this.destroy();
    return Promise.resolve(END);
  }

  get ended(): boolean {
    return this.done;
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return this;
  }

  readAll(limit: number): Promise<Buffer> {
    if (this.error) return Promise.reject(this.error);
    return new Promise((resolve, reject) => {
      this.collector = { resolve, reject, limit };
      if (this.done || this.queuedBytes >= limit) this.finishCollect();
      else this.controller?.resume();
    });
  }

  destroy(): void {
    if (this.done) return;
    const reason = new errors.RequestAbortedError();
    this.fail(networkError(this.backend, reason, this.signal));
    this.controller?.abort(reason);
  }

  /** Hands the collected body to readAll; stops the upstream if the limit cut it short. */
  private finishCollect(): void {
    const collector = this.collector!;
    this.collector = null;
    const body = this.take(collector.limit);
    if (!this.done) this.destroy();
    collector.resolve(body);
  }

  /** Empties the queue into one buffer of at most `limit` bytes (no copy for a single chunk). */
  private take(limit: number): Buffer {
    const { queue, queuedBytes } = this;
    this.queue = [];
    this.queuedBytes = 0;
    return queue.length === 1 && queuedBytes <= limit ? queue[0]! : Buffer.concat(queue, Math.min(queuedBytes, limit));
  }

  private fail(error: RouterError): void {
    this.done = true;
    this.endDeadline();
    this.error = error;
    this.queue = [];
    this.queuedBytes = 0;
    this.signal.removeEventListener('abort', this);
    const { started, waiter, collector } = this;
    this.started = this.waiter = this.collector = null;
    started?.reject(error);
    waiter?.reject(error);
    collector?.reject(error);
  }
}
