import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compatRecorder } from './compat-cells.js';
import { ask, CLIENT_FORMATS, type Answer, type ClientFormatName, type ToolDefinition, type Turn } from './clients.js';
import { BUILD_HOOK_TIMEOUT_MS, realModelUnavailable } from './llama-build.js';
import { REGISTRATIONS, ROUTE, startRealSetup, trainedModel, type RealSetup, type Registration } from './real-setup.js';
import { serverCounted, speedReport } from './server-reply.js';

/**
 * llama.cpp's `llama-server` with the trained tool-calling model, registered three ways and asked
 * in all three client formats through their official SDKs: the model's tool call reaches each
 * client as its own format's tool call, the result goes back in the server's format, the model
 * answers, and every usage the client is told is what the server counted. The model's argument
 * values are mostly wrong: names, shapes and the protocol are checked, never values.
 */

const unavailable = await realModelUnavailable();
const compat = compatRecorder('1-tool-calls');
let setup: RealSetup;

beforeAll(async () => {
  if (unavailable) return;
  setup = await startRealSetup(trainedModel(), { context: 4096, slots: 2 });
}, BUILD_HOOK_TIMEOUT_MS);
afterAll(async () => {
  if (!setup) return;
  process.stdout.write(`\nllama-server with tiny-chat-tools.gguf: ready ${Math.round(setup.server.startupMs)} ms after spawn; ${speedReport(setup.proxy.exchanges)}\n`);
  await setup.close();
});

const WEATHER: ToolDefinition = {
  name: 'get_weather',
  description: 'Get the current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
};
const TIME: ToolDefinition = {
  name: 'get_time',
  description: 'Get the current time in a timezone',
  parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] },
};

/** Each format's word for "the model called a tool", and the event its stream ends with. */
const TOOL_FINISH: Record<ClientFormatName, string> = { chat: 'tool_calls', messages: 'tool_use', responses: 'completed' };
const STOP_FINISH: Record<ClientFormatName, string> = { chat: 'stop', messages: 'end_turn', responses: 'completed' };
const LAST_EVENT: Record<ClientFormatName, string> = { chat: 'usage', messages: 'message_stop', responses: 'response.completed' };
const ID_SHAPE: Record<ClientFormatName, RegExp> = { chat: /^chatcmpl-/, messages: /^msg_/, responses: /^resp_/ };

/** The server's last exchange, which must be the request just made, once the server has ended it. */
async function lastExchange(path: string) {
  const exchange = setup.proxy.exchanges.at(-1)!;
  await exchange.done;
  expect(exchange.path).toBe(path);
  expect(exchange.complete).toBe(true);
  return exchange;
}

const SERVER_PATH: Record<Registration, string> = { 'openai-chat': '/v1/chat/completions', anthropic: '/v1/messages', 'openai-responses': '/v1/responses' };

/** The tool results the server was sent, read from its own format: call id and text. */
function toolResultsSent(registration: Registration, body: any): Array<{ id: string; output: string }> {
  switch (registration) {
    case 'openai-chat':
      return body.messages.filter((message: any) => message.role === 'tool').map((message: any) => ({ id: message.tool_call_id, output: message.content }));
    case 'anthropic':
      return body.messages.flatMap((message: any) =>
        Array.isArray(message.content) ? message.content.filter((block: any) => block.type === 'tool_result').map((block: any) => ({ id: block.tool_use_id, output: typeof block.content === 'string' ? block.content : block.content.map((part: any) => part.text).join('') })) : [],
      );
    case 'openai-responses':
      return body.input.filter((item: any) => item.type === 'function_call_output').map((item: any) => ({ id: item.call_id, output: item.output }));
  }
}

/** The call ids the server's own reply gave (the router may rename them for a client's format). */
function callIdsSentBack(registration: Registration, body: any): string[] {
  switch (registration) {
    case 'openai-chat':
      return body.messages.flatMap((message: any) => (message.tool_calls ?? []).map((call: any) => call.id));
    case 'anthropic':
      return body.messages.flatMap((message: any) => (Array.isArray(message.content) ? message.content.filter((block: any) => block.type === 'tool_use').map((block: any) => block.id) : []));
    case 'openai-responses':
      return body.input.filter((item: any) => item.type === 'function_call').map((item: any) => item.call_id);
  }
}

/** The pairs whose replies are forwarded as the server wrote them (same format), not translated. */
const FORWARDED: Record<ClientFormatName, Registration> = { chat: 'openai-chat', messages: 'anthropic', responses: 'openai-responses' };

function expectShape(answer: Answer, format: ClientFormatName, registration: Registration, stream: boolean): void {
  expect(answer.model).toBe(ROUTE[registration]);
  // A forwarded reply keeps the server's id, whatever its shape (llama-server's Messages ids are `chatcmpl-…`).
  if (FORWARDED[format] !== registration) expect(answer.id).toMatch(ID_SHAPE[format]);
  else expect(answer.id).not.toBe('');
  if (stream) expect(answer.events.at(-1)).toBe(LAST_EVENT[format]);
}

/** One round: the question with tools, the call, the result sent back, the answer. */
async function toolRound(registration: Registration, format: ClientFormatName, stream: boolean): Promise<void> {
  const model = ROUTE[registration];
  const question: Turn = { role: 'user', text: 'What is the weather in Paris?' };
  const call = await ask(setup.clients, format, { model, turns: [question], tools: [WEATHER, TIME], temperature: 0, stream });
  const callExchange = await lastExchange(SERVER_PATH[registration]);

  expect(call.ended, JSON.stringify(call)).toBe('tool-calls');
  expect(call.finish).toBe(TOOL_FINISH[format]);
  expect(call.toolCalls).toHaveLength(1);
  const [toolCall] = call.toolCalls;
  expect(toolCall!.name).toBe('get_weather');
  expect(toolCall!.id).not.toBe('');
  expect(JSON.parse(toolCall!.arguments)).toEqual({ city: expect.any(String) });
  expectShape(call, format, registration, stream);
  expect(call.usage).toEqual(serverCounted(callExchange));

  const output = JSON.stringify({ city: 'Paris', weather: 'sunny', celsius: 21 });
  const turns: Turn[] = [question, { role: 'assistant', toolCalls: call.toolCalls }, { role: 'tool', callId: toolCall!.id, name: toolCall!.name, output }];
  const answer = await ask(setup.clients, format, { model, turns, tools: [WEATHER, TIME], temperature: 0, stream });
  const answerExchange = await lastExchange(SERVER_PATH[registration]);

  // The server got the call and its result back in its own format, paired by its own id.
  const sent = JSON.parse(answerExchange.requestBody);
  const results = toolResultsSent(registration, sent);
  expect(results).toEqual([{ id: callIdsSentBack(registration, sent)[0], output }]);
  expect(answer.ended, JSON.stringify(answer)).toBe('stop');
  expect(answer.finish).toBe(STOP_FINISH[format]);
  expect(answer.toolCalls).toEqual([]);
  expect(answer.text.trim()).not.toBe('');
  expectShape(answer, format, registration, stream);
  expect(answer.usage).toEqual(serverCounted(answerExchange));
}

describe.skipIf(unavailable).each(REGISTRATIONS)('llama-server registered as %s', (registration) => {
  describe.each(CLIENT_FORMATS)('a %s client', (format) => {
    it.each([false, true])("stream %s: gets the tool call in its own format, sends the result back, gets the answer; usage is the server's", (stream) =>
      compat.cell(format, stream ? 'streamed tool call, result, answer' : 'tool call, result, answer', registration, () => toolRound(registration, format, stream)),
    );
  });
});
