import { afterEach, describe, expect, it } from 'vitest';
import type { ResponseCreateParams } from 'openai/resources/responses/responses';
import { startOpenAIResponsesSocketUpstream, type SocketUpstream, type SocketUpstreamOptions } from '../fakes/openai-responses-socket-upstream.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { parseSse } from '../helpers/sse-frames.js';
import { startRouter, type TestRouter } from '../helpers/router.js';

/**
 * An openai-responses backend with `websocket: true` reaches its upstream over WebSocket mode:
 * one socket per client session, reused turn after turn, each continuing turn sending only its
 * new input plus previous_response_id; HTTP when the upstream refuses the upgrade; a socket cut
 * mid-turn fails that turn in the client's format. The fake behind it answers both doors from one
 * model asked with the whole input, so a turn must answer the same whichever door it took.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** The model: a tool call on every other user question, an answer naming how much context it saw. */
function model(params: ResponseCreateParams): ScriptedTurn {
  const input = params.input as Array<Record<string, any>>;
  const users = input.filter((item) => item.role === 'user').length;
  const last = input.at(-1)!;
  if (last.type === 'function_call_output') return { text: `Noted ${String(last.output)} with ${input.length} items in view.` };
  if (users % 2 === 0) return { toolCalls: [{ id: `call_${users}`, name: 'lookup', arguments: { question: users } }] };
  return { text: `Answer ${users}, with ${input.length} items in view.` };
}

/** What an agent sends every turn: long instructions and a tool list (a coding agent's are ~10 KB). */
const INSTRUCTIONS = 'You are a careful coding agent. '.repeat(120);
const TOOLS = [{ type: 'function', name: 'lookup', description: 'Looks a question up in the project notes.', parameters: { type: 'object', properties: { question: { type: 'number' } }, required: ['question'] } }];

async function setUp(websocket: boolean, options: SocketUpstreamOptions = {}): Promise<{ router: TestRouter; upstream: SocketUpstream }> {
  const upstream = await startOpenAIResponsesSocketUpstream((params) => model(params), { apiKey: 'upstream-key', ...options });
  closers.push(() => upstream.close());
  const router = await startRouter();
  closers.push(() => router.close());
  router.config.update((settings) => {
    settings.backends.oar = { type: 'openai-responses', baseUrl: upstream.url, apiKey: 'upstream-key', ...(websocket ? { websocket: true } : {}) };
    settings.routes['svc.intelligent-pro'] = ['oar:gpt-5'];
  });
  return { router, upstream };
}

interface Turn {
  status: number;
  events: Array<Record<string, any>>;
  ms: number;
}

/** One streamed Responses turn over HTTP, as a client with the whole history sends it. */
async function turn(router: TestRouter, session: string, input: unknown[], path = '/v1/responses'): Promise<Turn> {
  const started = performance.now();
  const response = await fetch(`${router.origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json', session_id: session },
    body: JSON.stringify({ model: 'svc.intelligent-pro', instructions: INSTRUCTIONS, tools: TOOLS, store: false, input, stream: true }),
  });
  const text = await response.text();
  return { status: response.status, events: parseSse(text).map((frame) => JSON.parse(frame.data)), ms: performance.now() - started };
}

/** The client's next input: the reply's output replayed, then a tool result or a new question. */
function nextInput(history: unknown[], events: Array<Record<string, any>>, index: number): unknown[] {
  const done = events.find((event) => event.type === 'response.completed');
  const output = (done?.response.output ?? []) as Array<Record<string, any>>;
  const call = output.find((item) => item.type === 'function_call');
  const next = call ? { type: 'function_call_output', call_id: call.call_id, output: `result ${index}` } : { role: 'user', content: `Question ${index}: what does module ${index} do?` };
  return [...history, ...output, next];
}

/** An item as the model reads it: who said what (ids and statuses are the wire's, not the conversation's). */
const seen = (item: Record<string, any>): string =>
  item.type === 'function_call' ? `call ${item.call_id} ${item.arguments}` : item.type === 'function_call_output' ? `result ${item.call_id} ${item.output}` : `${item.role} ${typeof item.content === 'string' ? item.content : item.content.map((part: any) => part.text).join('')}`;

/** A turn's answer with what varies between two runs (ids, clocks) left out. */
const answer = (events: Array<Record<string, any>>): unknown =>
  events.map((event) => [event.type, event.delta ?? event.item?.call_id ?? event.item?.type ?? null, event.response?.usage ?? null]);

async function session(websocket: boolean, turns: number): Promise<{ upstream: SocketUpstream; answers: unknown[]; ms: number[]; models: string[][] }> {
  const { router, upstream } = await setUp(websocket);
  let input: unknown[] = [{ role: 'user', content: 'Question 0: where do I start?' }];
  const answers: unknown[] = [];
  const ms: number[] = [];
  for (let i = 0; i < turns; i++) {
    const reply = await turn(router, 'conv-1', input);
    expect(reply.status).toBe(200);
    expect(reply.events.at(-1)!.type).toBe('response.completed');
    answers.push(answer(reply.events));
    ms.push(reply.ms);
    input = nextInput(input, reply.events, i + 1);
  }
  const models = upstream.model.requests.map((request) => (request.body.input as Array<Record<string, any>>).map(seen));
  return { upstream, answers, ms, models };
}

const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);

describe('an openai-responses backend with websocket: true', () => {
  it('answers a 20-turn session as HTTP does, on one socket, sending each continuing turn only its new input', async () => {
    const http = await session(false, 20);
    const socket = await session(true, 20);
    // Every turn answered alike, from the same conversation as the model saw it.
    expect(socket.answers).toEqual(http.answers);
    expect(socket.models).toEqual(http.models);
    // One socket, upgraded once; no turn went over HTTP.
    expect(socket.upstream.upgrades).toBe(1);
    expect(socket.upstream.sockets).toBe(1);
    expect(socket.upstream.httpBodies).toEqual([]);
    expect(http.upstream.httpBodies).toHaveLength(20);
    // The first turn sends everything; each later one continues the last response with the new items alone.
    const turns = socket.upstream.turns;
    expect(turns[0]!.message.previous_response_id).toBeUndefined();
    for (let i = 1; i < 20; i++) {
      expect(turns[i]!.message.previous_response_id).toMatch(/^resp_/);
      expect(turns[i]!.message.input.length).toBeLessThanOrEqual(2);
      expect(turns[i]!.message.stream).toBeUndefined();
      expect(turns[i]!.bytes).toBeLessThan(http.upstream.httpBodies[i]!);
    }
    const httpBytes = http.upstream.httpBodies;
    const socketBytes = turns.map((record) => record.bytes);
    if (process.env.SVC_MEASURE) {
      // The figures in docs/performance.md: bytes as above; time per turn over further sessions, the two modes alternating so neither has the warmer process.
      const rounds: Array<{ httpMs: number; socketMs: number }> = [];
      for (let round = 0; round < 4; round++) {
        const first = await session(round % 2 === 0, 20);
        const second = await session(round % 2 !== 0, 20);
        const [overHttp, overSocket] = round % 2 === 0 ? [second, first] : [first, second];
        rounds.push({ httpMs: sum(overHttp.ms) / 20, socketMs: sum(overSocket.ms) / 20 });
      }
      console.log(JSON.stringify({ httpBytes, socketBytes, httpTotal: sum(httpBytes), socketTotal: sum(socketBytes), rounds }));
    }
    // Instructions and tools go with every turn (a previous response's are not carried over); the conversation does not.
    const continuing = socketBytes.slice(1);
    expect(Math.max(...continuing) - Math.min(...continuing)).toBeLessThan(64);
    expect(httpBytes[19]! - httpBytes[1]!).toBeGreaterThan(4_000);
  });

  it('goes over HTTP when the upstream refuses the upgrade, and does not ask again for a while', async () => {
    const { router, upstream } = await setUp(true, { refuseUpgrade: 404 });
    let input: unknown[] = [{ role: 'user', content: 'Question 0' }];
    const answers: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const reply = await turn(router, 'conv-2', input);
      expect(reply.status).toBe(200);
      expect(reply.events.at(-1)!.type).toBe('response.completed');
      answers.push(answer(reply.events));
      input = nextInput(input, reply.events, i + 1);
    }
    expect(upstream.upgrades).toBe(1);
    expect(upstream.httpBodies).toHaveLength(3);
    expect(upstream.turns).toEqual([]);
  });

  it('fails a turn whose socket is cut mid-response as a cut HTTP stream fails, then opens a new socket with the whole input', async () => {
    const cutTurn = async (websocket: boolean) => {
      const { router, upstream } = await setUp(websocket, { dropAt: { turn: 1, afterEvents: 4 } });
      const first = await turn(router, 'conv-3', [{ role: 'user', content: 'Question 0' }]);
      const input = nextInput([{ role: 'user', content: 'Question 0' }], first.events, 1);
      const cut = await turn(router, 'conv-3', input);
      expect(cut.status).toBe(200);
      expect(cut.events.some((event) => event.type === 'response.completed')).toBe(false);
      return { router, upstream, input, cut };
    };
    const overHttp = await cutTurn(false);
    const { router, upstream, input, cut } = await cutTurn(true);
    // The same events up to the cut, and the same failure after it.
    expect(answer(cut.events)).toEqual(answer(overHttp.cut.events));
    const failure = cut.events.at(-1)!;
    expect(failure.type).toBe('response.failed');
    expect(failure.response.error).toEqual(overHttp.cut.events.at(-1)!.response.error);
    expect(failure.response.error.message).toMatch(/oar/);
    // The retry takes a new socket, which knows no response: the whole input.
    const retry = await turn(router, 'conv-3', input);
    expect(retry.events.at(-1)!.type).toBe('response.completed');
    expect(upstream.sockets).toBe(2);
    expect(upstream.turns.at(-1)!.message.previous_response_id).toBeUndefined();
    expect(upstream.turns.at(-1)!.message.input).toHaveLength(input.length);
  });

  it('closes the socket when the client goes away mid-turn, so the upstream stops, and the next turn starts afresh', async () => {
    const { router, upstream } = await setUp(true, { hold: { turn: 1, afterEvents: 4 } });
    const first = await turn(router, 'conv-5', [{ role: 'user', content: 'Question 0' }]);
    const input = nextInput([{ role: 'user', content: 'Question 0' }], first.events, 1);
    const leaving = new AbortController();
    const response = await fetch(`${router.origin}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json', session_id: 'conv-5' },
      body: JSON.stringify({ model: 'svc.intelligent-pro', instructions: INSTRUCTIONS, tools: TOOLS, store: false, input, stream: true }),
      signal: leaving.signal,
    });
    await upstream.held;
    leaving.abort();
    await response.text().catch(() => undefined);
    // The router closed the socket the abandoned response ran on.
    await upstream.closedWhileHeld;
    const next = await turn(router, 'conv-5', input);
    expect(next.events.at(-1)!.type).toBe('response.completed');
    expect(upstream.sockets).toBe(2);
    expect(upstream.turns.at(-1)!.message.previous_response_id).toBeUndefined();
  });

  it('translates for a Chat client too, and a cut socket is a Chat stream error', async () => {
    const { router, upstream } = await setUp(true, { dropAt: { turn: 2, afterEvents: 4 } });
    const messages: Array<Record<string, any>> = [{ role: 'user', content: 'Question 0' }];
    const chat = async () => {
      const response = await fetch(`${router.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json', session_id: 'conv-4' },
        body: JSON.stringify({ model: 'svc.intelligent-pro', messages, stream: true }),
      });
      return { status: response.status, frames: parseSse(await response.text()) };
    };
    for (let i = 0; i < 2; i++) {
      const reply = await chat();
      expect(reply.status).toBe(200);
      expect(reply.frames.at(-1)!.data).toBe('[DONE]');
      const chunks = reply.frames.slice(0, -1).map((frame) => JSON.parse(frame.data));
      const text = chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? '').join('');
      const call = chunks.find((chunk) => chunk.choices?.[0]?.delta?.tool_calls)?.choices[0].delta.tool_calls[0];
      if (call) {
        messages.push({ role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: call.function.name, arguments: chunks.map((chunk) => chunk.choices?.[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '').join('') } }] });
        messages.push({ role: 'tool', tool_call_id: call.id, content: `result ${i}` });
      } else {
        messages.push({ role: 'assistant', content: text }, { role: 'user', content: `Question ${i + 1}` });
      }
    }
    expect(upstream.sockets).toBe(1);
    expect(upstream.turns[1]!.message.previous_response_id).toMatch(/^resp_/);
    const cut = await chat();
    const errors = cut.frames.filter((frame) => frame.data !== '[DONE]').map((frame) => JSON.parse(frame.data)).filter((chunk) => chunk.error);
    expect(errors).toHaveLength(1);
    expect(errors[0].error.message).toMatch(/oar/);
  });
});
