import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { compatRecorder } from './compat-cells.js';
import { ask, CLIENT_FORMATS, clientsFor, type ClientFormatName, type Counted, type ToolDefinition, type Turn } from './clients.js';
import { BUILD_HOOK_TIMEOUT_MS, ensureLlamaServer, realModelUnavailable } from './llama-build.js';
import { startLlamaServer } from './llama-server.js';
import { REGISTRATIONS, ROUTE, registerServer, trainedModel } from './real-setup.js';
import { startRecordingProxy } from './recording-proxy.js';
import { serverCounted } from './server-reply.js';

/**
 * The same bill as going direct, measured on a server we did not write: llama.cpp keeps each
 * slot's KV cache and reuses it for the longest prefix a new prompt shares with it, so the prompt
 * tokens it must process on each turn of a conversation show whether the prompt the router sends on
 * turn k+1 repeats turn k's. A multi-turn conversation (greeting, tool call, tool result, another
 * question) runs through every route and, for each client format, straight to the server; each run
 * gets a fresh server, so no run inherits another's cache.
 */

const unavailable = await realModelUnavailable();
const compat = compatRecorder('4-prompt-cache');
let router: TestRouter;

beforeAll(async () => {
  if (unavailable) return;
  await ensureLlamaServer();
  router = await startRouter();
}, BUILD_HOOK_TIMEOUT_MS);
afterAll(() => router?.close());

const TOOLS: ToolDefinition[] = [
  { name: 'get_weather', description: 'Get the current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] } },
  { name: 'get_time', description: 'Get the current time in a timezone', parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] } },
];

/** What the user says on each turn; a turn after a tool call sends the tool's result instead. */
const USER_TURNS = ['Hello!', 'What is the weather in Paris?', 'What time is it in UTC?'];
const TOOL_OUTPUT = JSON.stringify({ city: 'Paris', weather: 'sunny', celsius: 21 });

/** The server's counts per turn for one conversation, run by `format`'s client at `origin` as `model`. */
async function conversation(format: ClientFormatName, origin: string, key: string, model: string): Promise<Counted[]> {
  const server = await startLlamaServer(await ensureLlamaServer(), { model: trainedModel(), context: 4096, slots: 2 });
  const proxy = await startRecordingProxy(server.origin);
  try {
    const direct = origin === '';
    if (!direct) registerServer(router, proxy.origin);
    const clients = clientsFor(direct ? proxy.origin : origin, key);
    const turns: Turn[] = [];
    const counted: Counted[] = [];
    const users = [...USER_TURNS];
    while (users.length > 0 || turns.at(-1)?.role === 'tool') {
      const last = turns.at(-1);
      if (last?.role === 'assistant' && last.toolCalls?.length) {
        for (const call of last.toolCalls) turns.push({ role: 'tool', callId: call.id, name: call.name, output: TOOL_OUTPUT });
      } else {
        turns.push({ role: 'user', text: users.shift()! });
      }
      const answer = await ask(clients, format, { model: direct ? 'served-model' : model, turns, tools: TOOLS, temperature: 0, stream: false });
      turns.push({ role: 'assistant', ...(answer.text ? { text: answer.text } : {}), ...(answer.toolCalls.length ? { toolCalls: answer.toolCalls } : {}) });
      const exchange = proxy.exchanges.at(-1)!;
      await exchange.done;
      counted.push(serverCounted(exchange));
    }
    return counted;
  } finally {
    await proxy.close();
    await server.close();
  }
}

const cell = (count: Counted) => `${count.cached}/${count.input}`.padStart(9);

describe.skipIf(unavailable)('llama-server prompt cache, turn by turn', () => {
  it('reuses at least as much of each turn\'s prompt through every route as straight from the same client', { timeout: 120_000 }, async () => {
    const rows: string[] = [];
    const failures: string[] = [];
    for (const format of CLIENT_FORMATS) {
      const direct = await conversation(format, '', 'no-key', '');
      rows.push(`${`${format} client, direct`.padEnd(38)}${direct.map(cell).join('')}`);
      for (const registration of REGISTRATIONS) {
        const routed = await conversation(format, router.origin, router.key, ROUTE[registration]);
        rows.push(`${`${format} client via ${registration}`.padEnd(38)}${routed.map(cell).join('')}`);
        expect(routed.length, `${format} via ${registration}: turns`).toBe(direct.length);
        const short = routed.flatMap((turn, index) => (index > 0 && turn.cached < direct[index]!.cached ? [`turn ${index + 1}: ${turn.cached} cached, direct ${direct[index]!.cached}`] : []));
        failures.push(...short.map((failure) => `${format} via ${registration}, ${failure}`));
        compat.note(format, 'prompt cache: reuse per turn ≥ direct', registration, short.length ? 'fail' : 'pass', short[0]);
      }
    }
    process.stdout.write(`\nllama-server prompt cache per turn (cached/prompt tokens; the rest is processed anew):\n${rows.join('\n')}\n`);
    expect(failures).toEqual([]);
  });
});
