import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseSse } from '../helpers/sse-frames.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { compatRecorder } from './compat-cells.js';
import { ask, CLIENT_FORMATS, type ClientFormatName } from './clients.js';
import { BUILD_HOOK_TIMEOUT_MS, ensureLlamaServer, realModelUnavailable } from './llama-build.js';
import { startLlamaServer, type LlamaServer } from './llama-server.js';
import { REGISTRATIONS, ROUTE, randomModel, registerServer, startRealSetup, type RealSetup } from './real-setup.js';

/**
 * What a real server's slots do under the router: a client that hangs up frees its slot, more
 * requests than slots queue and are all answered, and a server that dies mid-stream ends each
 * client's stream with its own format's error event.
 */

const unavailable = await realModelUnavailable();
const compat = compatRecorder('3-slots');
let setup: RealSetup;

beforeAll(async () => {
  if (unavailable) return;
  setup = await startRealSetup(randomModel(), { context: 4096, slots: 2 });
}, BUILD_HOOK_TIMEOUT_MS);
afterAll(() => setup?.close());

interface SlotState {
  id: number;
  id_task?: number;
  is_processing: boolean;
  next_token?: Array<{ n_decoded: number }>;
}

async function slots(origin: string): Promise<SlotState[]> {
  return (await (await fetch(`${origin}/slots`)).json()) as SlotState[];
}

/** Reads the server's slots until none is busy (each read is a real request; nothing sleeps). */
async function untilIdle(origin: string): Promise<SlotState[]> {
  for (;;) {
    const state = await slots(origin);
    if (state.every((slot) => !slot.is_processing)) return state;
  }
}

/**
 * What the server's log says of a task once its slot is released: whether it was cancelled
 * (`stop: cancel task, id_task = N`) and the tokens the slot then held, prompt and output
 * (`task N | stop processing: n_tokens = K`). Waits for the lines, which may trail /slots.
 */
async function releaseOf(server: LlamaServer, task: number): Promise<{ cancelled: boolean; tokens: number }> {
  const released = new RegExp(`task ${task} \\| stop processing: n_tokens = (\\d+)`);
  for (;;) {
    const found = released.exec(server.log());
    if (found) return { cancelled: server.log().includes(`cancel task, id_task = ${task}\n`), tokens: Number(found[1]) };
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Far more than the slot's context holds: the generation runs until the context is full unless stopped. */
const ENDLESS = 100_000;

describe.skipIf(unavailable).each(REGISTRATIONS)('llama-server slots, registered as %s', (registration) => {
  const model = ROUTE[registration];

  it.each(CLIENT_FORMATS)('a %s client that hangs up mid-stream frees both slots at once for the next request', (format) => compat.cell(format, 'hang-up mid-stream frees the slot', registration, async () => {
    const before = await untilIdle(setup.server.origin);
    const tasks = new Set(before.map((slot) => slot.id_task));
    // Two streams, one per slot, each hung up on once its text is flowing.
    const hangUps = [0, 1].map(async (index) => {
      const controller = new AbortController();
      await ask(setup.clients, format, {
        model,
        turns: [{ role: 'user', text: `Story number ${index}, please.` }],
        maxTokens: ENDLESS,
        temperature: 1,
        stream: true,
        signal: controller.signal,
        onText: () => controller.abort(),
      }).catch(() => undefined);
      expect(controller.signal.aborted).toBe(true);
    });
    await Promise.all(hangUps);
    const after = await untilIdle(setup.server.origin);
    const aborted = after.filter((slot) => !tasks.has(slot.id_task));
    expect(aborted.length).toBeGreaterThan(0);
    // Stopped well before the context was full: the server heard the hang-up through the router.
    // Stopped well before the context was full: the server heard the hang-up through the router.
    for (const slot of aborted) {
      const release = await releaseOf(setup.server, slot.id_task!);
      expect(release.cancelled).toBe(true);
      expect(release.tokens).toBeLessThan(setup.server.slotContext / 2);
    }

    const next = await ask(setup.clients, format, { model, turns: [{ role: 'user', text: 'Next!' }], maxTokens: 4, temperature: 0, stream: false });
    expect(next.ended).toBe('length');
  }));

  it('three requests at once on two slots are all answered, each in its own format', () => compat.cell([...CLIENT_FORMATS], 'three requests on two slots, all answered', registration, async () => {
    const answers = await Promise.all(
      CLIENT_FORMATS.map((format, index) => ask(setup.clients, format, { model, turns: [{ role: 'user', text: `Request ${index}` }], maxTokens: 48, temperature: 0, stream: index % 2 === 0 })),
    );
    for (const answer of answers) {
      expect(answer.ended).toBe('length');
      expect(answer.usage.output).toBe(48);
    }
  }));
});

/** The terminal frame each client format ends a failed stream with. */
function expectErrorEnd(format: ClientFormatName, body: string): void {
  const frames = parseSse(body);
  const last = frames.at(-1)!;
  switch (format) {
    case 'chat':
      expect(JSON.parse(last.data)).toMatchObject({ error: { message: expect.stringContaining('llama-') } });
      break;
    case 'messages':
      expect(last.event).toBe('error');
      expect(JSON.parse(last.data)).toMatchObject({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
      break;
    case 'responses':
      expect(last.event).toBe('response.failed');
      expect(JSON.parse(last.data)).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { message: expect.any(String) } } });
      break;
  }
}

const STREAM_REQUEST: Record<ClientFormatName, { path: string; body: (model: string) => object }> = {
  chat: { path: '/v1/chat/completions', body: (model) => ({ model, stream: true, max_tokens: ENDLESS, messages: [{ role: 'user', content: 'Go on.' }] }) },
  messages: { path: '/v1/messages', body: (model) => ({ model, stream: true, max_tokens: ENDLESS, messages: [{ role: 'user', content: 'Go on.' }] }) },
  responses: { path: '/v1/responses', body: (model) => ({ model, stream: true, max_output_tokens: ENDLESS, input: 'Go on.' }) },
};

describe.skipIf(unavailable)('a llama-server killed mid-stream', () => {
  let router: TestRouter;
  let server: LlamaServer | undefined;
  beforeAll(async () => {
    router = await startRouter();
  });
  afterAll(() => router?.close());
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  describe.each(REGISTRATIONS)('registered as %s', (registration) => {
    it.each(CLIENT_FORMATS)('ends a %s client\'s stream with its format\'s error event', (format) => compat.cell(format, 'server killed mid-stream → error event', registration, async () => {
      server = await startLlamaServer(await ensureLlamaServer(), { model: randomModel(), context: 4096, slots: 2 });
      registerServer(router, server.origin);
      const request = STREAM_REQUEST[format];
      const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${router.key}`, 'x-api-key': router.key, 'anthropic-version': '2023-06-01' };
      const response = await fetch(`${router.origin}${request.path}`, { method: 'POST', headers, body: JSON.stringify(request.body(ROUTE[registration])) });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      let body = '';
      let killed = false;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        body += Buffer.from(value).toString('utf8');
        // Killed once the answer's text is flowing.
        if (!killed && /"(content|delta|text)":"[^"]/.test(body)) {
          killed = true;
          await server.kill();
        }
      }
      expect(killed).toBe(true);
      expectErrorEnd(format, body);
    }));
  });
});
