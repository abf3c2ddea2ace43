import fc from 'fast-check';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { Exchange } from '../../src/backends/http/upstream-exchange.js';
import { ClientGone } from '../../src/core/client-signal.js';
import { RouterError } from '../../src/core/errors.js';
import { TimerWheel } from '../../src/core/timer-wheel.js';
import { FakeClock } from '../helpers/fake-clock.js';

/**
 * The upstream's first-byte and idle deadlines, held by the exchange on a deadline wheel: driven
 * here by hand (undici's side played by the test, the clock a fake one), so no test waits.
 */

const TICK = 50;
const FIRST_BYTE_MS = 1_000;
const IDLE_MS = 500;

function exchangeOnFakeClock() {
  const clock = new FakeClock(10_000);
  const wheel = new TimerWheel(TICK, clock);
  const exchange = new Exchange('slow', new ClientGone(), wheel).limitWaits(FIRST_BYTE_MS, IDLE_MS);
  const controller = { paused: false, aborted: undefined as unknown, pause: () => void (controller.paused = true), resume: () => void (controller.paused = false), abort: (reason: unknown) => void (controller.aborted = reason) };
  const dispatcher = { dispatch: () => true } as unknown as Dispatcher;
  const started = exchange.start(dispatcher, {} as Dispatcher.DispatchOptions);
  started.catch(() => {});
  const ctl = controller as unknown as Dispatcher.DispatchController;
  return {
    clock,
    wheel,
    exchange,
    controller,
    started,
    sent: () => exchange.onRequestStart(ctl),
    head: () => exchange.onResponseStart(ctl, 200, {}),
    chunk: () => exchange.onResponseData(ctl, Buffer.from('x')),
    failure: (): RouterError | undefined => (controller.aborted instanceof RouterError ? controller.aborted : undefined),
  };
}

describe('Exchange first-byte and idle deadlines', () => {
  it('fails "did not answer in time" no sooner than the first-byte wait after sending, and within a tick of it', async () => {
    const call = exchangeOnFakeClock();
    call.clock.advance(5_000); // queued for a connection: not counted
    call.sent();
    call.clock.advance(FIRST_BYTE_MS - 1);
    expect(call.failure()).toBeUndefined();
    call.clock.advance(TICK + 1);
    expect(call.failure()).toMatchObject({ status: 504, code: 'upstream_timeout', message: expect.stringContaining('did not answer in time') });
    await expect(call.started).rejects.toMatchObject({ status: 504 });
    expect(call.wheel.size).toBe(0);
  });

  it('property: the idle deadline fires only after IDLE_MS without a chunk, within a tick, and never while the reader has paused the upstream', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ gap: fc.integer({ min: 0, max: IDLE_MS - 1 }), pause: fc.boolean() }), { maxLength: 30 }), fc.integer({ min: 0, max: 20_000 }), async (steps, pausedFor) => {
        const call = exchangeOnFakeClock();
        call.sent();
        call.head();
        const response = await call.started;
        for (const { gap, pause } of steps) {
          call.clock.advance(gap);
          call.chunk();
          if (pause) {
            // The reader falls behind: 16 chunks queued pause the upstream, however long the reader takes.
            for (let i = 0; i < 16; i++) call.chunk();
            expect(call.controller.paused).toBe(true);
            call.clock.advance(pausedFor);
            expect(call.failure()).toBeUndefined();
            await response.body[Symbol.asyncIterator]().next();
            expect(call.controller.paused).toBe(false);
          }
          expect(call.failure()).toBeUndefined();
        }
        const quietSince = call.clock.now();
        call.clock.advance(IDLE_MS - 1);
        expect(call.failure()).toBeUndefined();
        while (!call.failure()) call.clock.advance(1);
        expect(call.clock.now() - quietSince).toBeLessThanOrEqual(IDLE_MS + TICK);
        expect(call.failure()).toMatchObject({ status: 504, code: 'upstream_timeout', message: expect.stringContaining('stopped sending') });
        expect(call.wheel.size).toBe(0);
      }),
      { numRuns: 40 },
    );
  });

  it('leaves nothing on the wheel once the body has ended', async () => {
    const call = exchangeOnFakeClock();
    call.sent();
    call.head();
    await call.started;
    call.chunk();
    call.exchange.onResponseEnd();
    expect(call.wheel.size).toBe(0);
    expect(call.clock.armed).toBeUndefined();
  });
});
