import { errors, type Dispatcher } from 'undici';
import type { ClientSignal } from '../../core/client-signal.js';
import { RouterError } from '../../core/errors.js';
import { deadlines, type Deadline, type TimerWheel } from '../../core/timer-wheel.js';
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
  /** The wait for the response's head (from the request's sending), then for each next chunk. */
  private firstByteMs = 0;
  private idleMs = 0;
  private wait: Deadline | null = null;
  /** The wheel's clock when the upstream last sent something (or the reader last resumed it), for the idle deadline. */
  private heardAt = 0;
  /** The queue paused the upstream: no idle deadline while the reader is the slow one. */
  private paused = false;

  constructor(
    private readonly backend: string,
    private readonly signal: ClientSignal,
    /** Where its deadlines wait: the process's wheel (another only in tests, with a clock of their own). */
    private readonly wheel: TimerWheel = deadlines,
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
    this.deadline = this.wheel.after(ms, () => this.expire(ms));
    return this;
  }

  /**
   * Bounds the wait for the response's head to `firstByteMs` from the request's sending, and each
   * wait for the next body chunk to `idleMs` (not while the reader has paused the upstream); 0 is
   * no bound. These are undici's headersTimeout and bodyTimeout, kept here on the deadline wheel.
   */
  limitWaits(firstByteMs: number, idleMs: number): this {
    this.firstByteMs = firstByteMs;
    this.idleMs = idleMs;
    return this;
  }

  private readonly onWaitOver = (): void => {
    if (this.done) return;
    if (this.heardAt === 0) return this.timedOut(new errors.HeadersTimeoutError());
    const now = this.wheel.now();
    if (this.paused) this.heardAt = now;
    const quiet = now - this.heardAt;
    if (quiet >= this.idleMs) return this.timedOut(new errors.BodyTimeoutError());
    // A chunk came meanwhile (chunks only note the time): wait out the rest.
    this.wheel.reschedule(this.wait!, this.idleMs - quiet);
  };

  private timedOut(error: Error): void {
    const reason = networkError(this.backend, error, this.signal);
    this.fail(reason);
    this.controller?.abort(reason);
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

  private endWait(): void {
    if (this.wait) {
      this.wait.cancel();
      this.wait = null;
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
    // The request is being sent now: the wait for its answer starts.
    if (this.firstByteMs > 0 && !this.wait && !this.done) this.wait = this.wheel.after(this.firstByteMs, this.onWaitOver);
    // Aborted while still queued for a connection: stop before anything is sent.
    if (this.done) controller.abort(new errors.RequestAbortedError());
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx interim response: the real one follows
    this.controller = controller;
    this.endWait();
    if (this.idleMs > 0 && !this.done) {
      this.heardAt = this.wheel.now();
      this.wait = this.wheel.after(this.idleMs, this.onWaitOver);
    }
    const started = this.started;
    this.started = null;
    started?.resolve({ statusCode, headers, body: this });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.done) return;
    if (this.wait) this.heardAt = this.wheel.now();
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
      this.paused = true;
    }
  }

  onResponseEnd(): void {
    if (this.done) return;
    this.done = true;
    this.endDeadline();
    this.endWait();
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
      if (this.paused) this.resume();
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
      else if (this.paused) this.resume();
    });
  }

  destroy(): void {
    if (this.done) return;
    const reason = new errors.RequestAbortedError();
    this.fail(networkError(this.backend, reason, this.signal));
    this.controller?.abort(reason);
  }

  /** Lets a paused upstream send again; its idle wait starts over, as undici's does on resume. */
  private resume(): void {
    this.paused = false;
    if (this.wait) this.heardAt = this.wheel.now();
    this.controller?.resume();
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
    this.endWait();
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
