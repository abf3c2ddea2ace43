import type { Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Exchange, SWEPT_DEADLINE_MS, sweptExchanges } from '../../src/backends/http/upstream-exchange.js';
import { RouterError } from '../../src/core/errors.js';

/** A dispatcher that sends nothing and answers only when told to. */
function silentDispatcher() {
  let handler: Dispatcher.DispatchHandler | undefined;
  const controller = { abort: vi.fn(), pause() {}, resume() {}, aborted: false, paused: false, reason: null } as unknown as Dispatcher.DispatchController;
  const dispatcher = {
    dispatch(_options: Dispatcher.DispatchOptions, given: Dispatcher.DispatchHandler) {
      handler = given;
      handler.onRequestStart?.(controller, {});
      return true;
    },
  } as unknown as Dispatcher;
  return {
    dispatcher,
    controller,
    answer(chunks: string[]) {
      handler!.onResponseStart?.(controller, 200, {}, 'OK');
      for (const chunk of chunks) handler!.onResponseData?.(controller, Buffer.from(chunk));
      handler!.onResponseEnd?.(controller, {});
    },
  };
}

const OPTIONS = { origin: 'http://upstream.invalid', path: '/v1/x', method: 'POST' } as Dispatcher.DispatchOptions;

describe('an upstream exchange with a deadline of ten seconds or more (checked by the shared sweep)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fails with a 504 naming the deadline within a second of it, and aborts the request', async () => {
    const upstream = silentDispatcher();
    const started = new Exchange('slow', new AbortController().signal).limitTotal(SWEPT_DEADLINE_MS).start(upstream.dispatcher, OPTIONS);
    const outcome = started.then(
      () => 'answered',
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(SWEPT_DEADLINE_MS - 1);
    expect(upstream.controller.abort).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1_000);
    const error = await outcome;
    expect(error).toBeInstanceOf(RouterError);
    expect(error).toMatchObject({ status: 504, code: 'upstream_timeout' });
    expect((error as RouterError).message).toContain(`within ${SWEPT_DEADLINE_MS} ms`);
    expect(upstream.controller.abort).toHaveBeenCalledTimes(1);
  });

  it('ends when the body is read whole in time, and fires nothing after', async () => {
    const upstream = silentDispatcher();
    const exchange = new Exchange('quick', new AbortController().signal).limitTotal(60_000);
    const started = exchange.start(upstream.dispatcher, OPTIONS);
    upstream.answer(['{"ok":', 'true}']);
    const response = await started;
    expect((await response.body.readAll(1024)).toString()).toBe('{"ok":true}');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(upstream.controller.abort).not.toHaveBeenCalled();
    // Nothing is left to watch, and the sweep has stopped.
    expect(sweptExchanges()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends at a stream’s first read: the idle timeout bounds a stream, however long', async () => {
    const upstream = silentDispatcher();
    const started = new Exchange('streaming', new AbortController().signal).limitTotal(SWEPT_DEADLINE_MS).start(upstream.dispatcher, OPTIONS);
    upstream.answer(['data: 1\n\n']);
    const response = await started;
    const chunks = response.body[Symbol.asyncIterator]();
    expect((await chunks.next()).done).toBe(false);
    expect(sweptExchanges()).toBe(0);
    await vi.advanceTimersByTimeAsync(SWEPT_DEADLINE_MS * 3);
    expect(upstream.controller.abort).not.toHaveBeenCalled();
  });
});
