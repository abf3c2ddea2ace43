import { afterEach, describe, expect, it } from 'vitest';
import { ResponsesSocketPool, socketUrl, type SocketTurn } from '../../../src/backends/openai-responses/socket/socket-pool.js';
import { TimerWheel } from '../../../src/core/timer-wheel.js';
import { startOpenAIResponsesSocketUpstream, type SocketUpstream, type SocketUpstreamOptions } from '../../fakes/openai-responses-socket-upstream.js';
import { FakeClock } from '../../helpers/fake-clock.js';

/** The pool's bounds: sockets per backend, idle sockets closed, one turn at a time per session, refusals remembered, lost state recovered. */

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const HEADERS = { authorization: 'Bearer upstream-key', 'content-type': 'application/json' };
const LIMITS = { maxSockets: 2, idleMs: 1_000, refusalMs: 60_000 };

async function setUp(options: SocketUpstreamOptions = {}): Promise<{ upstream: SocketUpstream; pool: ResponsesSocketPool; clock: FakeClock }> {
  const upstream = await startOpenAIResponsesSocketUpstream([{ text: 'Done.' }], { apiKey: 'upstream-key', ...options });
  closers.push(() => upstream.close());
  const clock = new FakeClock(1);
  const pool = new ResponsesSocketPool(socketUrl(upstream.url), undefined, LIMITS, new TimerWheel(50, clock));
  closers.push(() => pool.close());
  return { upstream, pool, clock };
}

const body = (input: unknown[]) => ({ model: 'gpt-5', input, stream: true });

/** Reads a turn to its end, as the decoder does, and hands the socket back. */
async function finish(turn: SocketTurn | undefined): Promise<Array<Record<string, any>>> {
  expect(turn).toBeDefined();
  const events: Array<Record<string, any>> = [];
  for await (const batch of turn!.frames) events.push(...batch.map((frame) => JSON.parse(frame.data)));
  turn!.done(true);
  return events;
}

describe('ResponsesSocketPool', () => {
  it('keeps at most maxSockets, closing the one idle longest for a new session, and none while all are busy', async () => {
    const { pool, upstream } = await setUp();
    await finish(await pool.turn('a', HEADERS, body([{ role: 'user', content: 'hi' }]), new AbortController().signal));
    await finish(await pool.turn('b', HEADERS, body([{ role: 'user', content: 'hi' }]), new AbortController().signal));
    await finish(await pool.turn('c', HEADERS, body([{ role: 'user', content: 'hi' }]), new AbortController().signal));
    expect(pool.size).toBe(2);
    expect(upstream.sockets).toBe(3);
    const busyB = await pool.turn('b', HEADERS, body([{ role: 'user', content: 'again' }]), new AbortController().signal);
    const busyC = await pool.turn('c', HEADERS, body([{ role: 'user', content: 'again' }]), new AbortController().signal);
    // Both sockets busy: a new session, and a second turn of a busy one, go over HTTP.
    expect(await pool.turn('d', HEADERS, body([]), new AbortController().signal)).toBeUndefined();
    expect(await pool.turn('b', HEADERS, body([]), new AbortController().signal)).toBeUndefined();
    await finish(busyB);
    await finish(busyC);
    // No session, no socket to keep.
    expect(await pool.turn(undefined, HEADERS, body([]), new AbortController().signal)).toBeUndefined();
  });

  it('closes a socket idle for idleMs', async () => {
    const { pool, clock } = await setUp();
    await finish(await pool.turn('a', HEADERS, body([{ role: 'user', content: 'hi' }]), new AbortController().signal));
    expect(pool.size).toBe(1);
    clock.advance(LIMITS.idleMs - 100);
    expect(pool.size).toBe(1);
    clock.advance(200);
    expect(pool.size).toBe(0);
  });

  it('remembers a refused upgrade for refusalMs, then asks again', async () => {
    const { pool, upstream, clock } = await setUp({ refuseUpgrade: 400 });
    expect(await pool.turn('a', HEADERS, body([]), new AbortController().signal)).toBeUndefined();
    expect(await pool.turn('b', HEADERS, body([]), new AbortController().signal)).toBeUndefined();
    expect(upstream.upgrades).toBe(1);
    clock.advance(LIMITS.refusalMs + 100);
    expect(await pool.turn('a', HEADERS, body([]), new AbortController().signal)).toBeUndefined();
    expect(upstream.upgrades).toBe(2);
  });

  it('sends the whole input again when the upstream no longer knows the previous response', async () => {
    const { pool, upstream } = await setUp({ forget: true });
    const first = [{ role: 'user', content: 'hi' }];
    const events = await finish(await pool.turn('a', HEADERS, body(first), new AbortController().signal));
    const output = events.at(-1)!.response.output;
    const second = [...first, ...output, { role: 'user', content: 'and then?' }];
    const answer = await finish(await pool.turn('a', HEADERS, body(second), new AbortController().signal));
    expect(answer.at(-1)!.type).toBe('response.completed');
    expect(answer.some((event) => event.type === 'error')).toBe(false);
    expect(upstream.failures).toEqual(['previous_response_not_found']);
    expect(upstream.turns.map((turn) => turn.message.input.length)).toEqual([1, 3]);
    expect(upstream.sockets).toBe(1);
  });
});
