import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startBedrockUpstream, type BedrockUpstream, type BedrockUpstreamOptions } from '../fakes/bedrock-upstream.js';
import type { Script } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { SKU, WEATHER_SCHEMA } from './support.js';

/** AWS's documentation example keys: fakes, never real. */
const ACCESS_KEY_ID = 'AKIDEXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const SESSION_TOKEN = 'FQoGZXIvYXdzEXAMPLESESSIONTOKEN0123456789abcdef';
const REGION = 'us-west-2';
const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

let router: TestRouter;
let openai: OpenAI;
let anthropic: Anthropic;
const open: BedrockUpstream[] = [];
const saved = { ...process.env };

beforeAll(async () => {
  router = await startRouter();
  openai = new OpenAI({ apiKey: router.key, baseURL: `${router.origin}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((fake) => fake.close()));
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_SHARED_CREDENTIALS_FILE', 'AWS_CONFIG_FILE', 'AWS_REGION']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});
afterAll(() => router.close());

/** A fake that knows the right secret, and the router's backend pointing at it with credentials from the environment. */
async function bedrock(script: Script, environment: { secret?: string; sessionToken?: string } = {}, settings: { awsProfile?: string } = {}, fakeOptions: Partial<BedrockUpstreamOptions> = {}) {
  const fake = await startBedrockUpstream(script, { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, sessionToken: SESSION_TOKEN, region: REGION, ...fakeOptions });
  open.push(fake);
  if (!settings.awsProfile) {
    process.env.AWS_ACCESS_KEY_ID = ACCESS_KEY_ID;
    process.env.AWS_SECRET_ACCESS_KEY = environment.secret ?? SECRET;
    process.env.AWS_SESSION_TOKEN = environment.sessionToken ?? SESSION_TOKEN;
  }
  router.config.update((config) => {
    config.backends.aws = { type: 'bedrock', baseUrl: fake.url, region: REGION, ...settings };
    config.routes[SKU] = [`aws:${MODEL}`];
  });
  return fake;
}

const TOOL_TURNS: Script = [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], chunkSize: 3 }, { text: 'Paris is sunny, 18°C.', chunkSize: 4 }];

/** What every request to the fake must be: Bedrock's path for the model, a Claude body without model or stream, the tool offered. */
function expectBedrockCalls(fake: BedrockUpstream, streaming: boolean) {
  expect(fake.refused).toBe(0);
  expect(fake.requests).toHaveLength(2);
  for (const request of fake.requests) {
    expect(request.path).toBe(`/model/${encodeURIComponent(MODEL)}/${streaming ? 'invoke-with-response-stream' : 'invoke'}`);
    expect(request.body.anthropic_version).toBe('bedrock-2023-05-31');
    expect(request.body).not.toHaveProperty('model');
    expect(request.body).not.toHaveProperty('stream');
    expect(request.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['get_weather']);
  }
  // The second turn carries the call and its result back, in Anthropic's shape.
  const replay = JSON.stringify(fake.requests[1]!.body.messages);
  expect(replay).toContain('"tool_use"');
  expect(replay).toContain('"tool_result"');
}

describe('a bedrock backend (Claude over InvokeModel, SigV4-signed)', () => {
  it.each([false, true])('serves a chat client a two-turn tool loop (streaming: %s)', async (streaming) => {
    const fake = await bedrock(TOOL_TURNS);
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: { ...WEATHER_SCHEMA } } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const ask = () => (streaming ? openai.chat.completions.stream({ model: SKU, messages, tools }).finalChatCompletion() : openai.chat.completions.create({ model: SKU, messages, tools }));
    const first = await ask();
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'sunny, 18°C' });
    const second = await ask();
    expect(second.choices[0]!.message.content).toBe('Paris is sunny, 18°C.');
    expectBedrockCalls(fake, streaming);
  });

  it.each([false, true])('serves a responses client a two-turn tool loop (streaming: %s)', async (streaming) => {
    const fake = await bedrock(TOOL_TURNS);
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', parameters: { ...WEATHER_SCHEMA }, strict: false }];
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Paris?' }];
    const ask = async (): Promise<OpenAI.Responses.Response> => {
      if (!streaming) return openai.responses.create({ model: SKU, input, tools });
      return openai.responses.stream({ model: SKU, input, tools }).finalResponse();
    };
    const first = await ask();
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(call.type === 'function_call' && JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.type === 'function_call' ? call.call_id : '', output: 'sunny, 18°C' });
    const second = await ask();
    expect(second.output_text).toBe('Paris is sunny, 18°C.');
    expectBedrockCalls(fake, streaming);
  });

  it.each([false, true])('serves a messages client a two-turn tool loop (streaming: %s)', async (streaming) => {
    const fake = await bedrock(TOOL_TURNS);
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Current weather', input_schema: { ...WEATHER_SCHEMA } }];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const ask = () => (streaming ? anthropic.messages.stream({ model: SKU, max_tokens: 256, messages, tools }).finalMessage() : anthropic.messages.create({ model: SKU, max_tokens: 256, messages, tools }));
    const first = await ask();
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use')!;
    expect(use.type === 'tool_use' && use.input).toEqual({ city: 'Paris' });
    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.type === 'tool_use' ? use.id : '', content: 'sunny, 18°C' }] });
    const second = await ask();
    expect(second.content).toMatchObject([{ type: 'text', text: 'Paris is sunny, 18°C.' }]);
    expectBedrockCalls(fake, streaming);
  });

  it.each([false, true])('answers a wrong secret with a 502 that names the backend and carries neither the secret nor the session token (streaming: %s)', async (streaming) => {
    const wrong = 'WRONGsecretKEYwJalrXUtnFEMI0123456789abcd';
    const fake = await bedrock([{ text: 'never' }], { secret: wrong });
    const response = await fetch(`${router.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: SKU, stream: streaming, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.text();
    expect(fake.refused).toBe(1);
    expect(response.status).toBe(502);
    expect(text).toContain("Backend 'aws' rejected");
    // The fake quotes its canonical string, session token included, as AWS does.
    expect(text).not.toContain(wrong);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SESSION_TOKEN);
  });

  it('signs with a named profile of the shared credentials file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aws-'));
    writeFileSync(join(dir, 'credentials'), `[default]\naws_access_key_id = AKIDOTHER\naws_secret_access_key = other\n\n[work]\naws_access_key_id = ${ACCESS_KEY_ID}\naws_secret_access_key = ${SECRET}\naws_session_token = ${SESSION_TOKEN}\n`);
    process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'credentials');
    process.env.AWS_CONFIG_FILE = join(dir, 'config');
    delete process.env.AWS_ACCESS_KEY_ID;
    const fake = await bedrock([{ text: 'Signed by profile.' }], {}, { awsProfile: 'work' });
    const reply = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.choices[0]!.message.content).toBe('Signed by profile.');
    expect(fake.refused).toBe(0);
  });

  it("doctor's probe lists the foundation models with a signed GET, and a wrong secret is refused", async () => {
    const { probe } = await import('../../src/backends/bedrock/probe.js');
    const fake = await startBedrockUpstream([{ text: 'unused' }], { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, region: REGION, models: ['anthropic.claude-sonnet-4-5-20250929-v1:0'] });
    open.push(fake);
    process.env.AWS_ACCESS_KEY_ID = ACCESS_KEY_ID;
    for (const [secret, status] of [[SECRET, 200], ['not-the-secret', 403]] as const) {
      process.env.AWS_SECRET_ACCESS_KEY = secret;
      const { url, headers } = probe.modelList(fake.url, undefined, { region: REGION });
      const answer = await fetch(url, { headers });
      expect(answer.status).toBe(status);
      if (status === 200) expect(probe.readModels(await answer.json())).toEqual({ ids: ['anthropic.claude-sonnet-4-5-20250929-v1:0'], complete: true });
    }
    expect(probe.listedAs!(MODEL)).toBe('anthropic.claude-sonnet-4-5-20250929-v1:0');
  });

  it("passes a refused request on as a 400 in the client's format with AWS's message", async () => {
    await bedrock([{ status: 400, errorBody: { type: 'error', error: { type: 'invalid_request_error', message: 'messages: text content blocks must be non-empty' } } }]);
    const error = await anthropic.messages.create({ model: SKU, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(400);
    expect((error as Error).message).toContain("Backend 'aws' rejected the request (HTTP 400): messages: text content blocks must be non-empty");
  });

  it('ends a stream that AWS breaks off with an exception in an error event, in the client format, with AWS words', async () => {
    await bedrock([{ text: 'A long answer that will not finish', chunkSize: 4 }], {}, {}, { streamException: { afterEvents: 4, type: 'modelStreamErrorException', message: 'The model stopped unexpectedly.' } });
    const response = await fetch(`${router.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': router.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: SKU, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.text();
    expect(text).toContain('event: message_start');
    const last = text.trim().split('\n\n').at(-1)!;
    expect(last).toContain('event: error');
    expect(last).toContain('modelStreamErrorException: The model stopped unexpectedly.');
    expect(text).not.toContain('message_stop');
  });
});

const NOVA = 'us.amazon.nova-pro-v1:0';

/** Points the route at a model of another family, on the same signed backend. */
async function converseBackend(script: Script, fakeOptions: Partial<BedrockUpstreamOptions> = {}) {
  const fake = await bedrock(script, {}, {}, fakeOptions);
  router.config.update((config) => {
    config.routes[SKU] = [`aws:${NOVA}`];
  });
  return fake;
}

/** What every Converse call must be: the model's converse path, a Converse body (no Anthropic fields), the tool as a toolSpec, the loop replayed as toolUse and toolResult. */
function expectConverseCalls(fake: BedrockUpstream, streaming: boolean) {
  expect(fake.refused).toBe(0);
  expect(fake.requests).toHaveLength(2);
  for (const request of fake.requests) {
    expect(request.path).toBe(`/model/${encodeURIComponent(NOVA)}/${streaming ? 'converse-stream' : 'converse'}`);
    expect(request.body).not.toHaveProperty('anthropic_version');
    expect(request.body).not.toHaveProperty('max_tokens');
    expect(request.body.toolConfig.tools.map((tool: { toolSpec: { name: string } }) => tool.toolSpec.name)).toEqual(['get_weather']);
  }
  const [assistant, user] = fake.requests[1]!.body.messages.slice(-2);
  expect(assistant.content.find((block: { toolUse?: unknown }) => block.toolUse).toolUse).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });
  const result = user.content.find((block: { toolResult?: unknown }) => block.toolResult).toolResult;
  expect(result.toolUseId).toBe(assistant.content.find((block: { toolUse?: unknown }) => block.toolUse).toolUse.toolUseId);
  expect(result.content).toEqual([{ text: 'sunny, 18°C' }]);
}

describe('a bedrock backend, other model families (Converse and ConverseStream)', () => {
  it.each([false, true])('serves a chat client a two-turn tool loop (streaming: %s)', async (streaming) => {
    const fake = await converseBackend(TOOL_TURNS);
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: { ...WEATHER_SCHEMA } } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Weather in Paris?' }];
    const ask = () => (streaming ? openai.chat.completions.stream({ model: SKU, messages, tools, max_tokens: 200 }).finalChatCompletion() : openai.chat.completions.create({ model: SKU, messages, tools, max_tokens: 200 }));
    const first = await ask();
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'sunny, 18°C' });
    const second = await ask();
    expect(second.choices[0]!.message.content).toBe('Paris is sunny, 18°C.');
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expectConverseCalls(fake, streaming);
    expect(fake.requests[0]!.body.system).toEqual([{ text: 'Be brief.' }]);
    expect(fake.requests[0]!.body.inferenceConfig).toEqual({ maxTokens: 200 });
  });

  it.each([false, true])('serves a responses client a two-turn tool loop (streaming: %s)', async (streaming) => {
    const fake = await converseBackend(TOOL_TURNS);
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', parameters: { ...WEATHER_SCHEMA }, strict: false }];
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Paris?' }];
    const ask = async (): Promise<OpenAI.Responses.Response> => (streaming ? openai.responses.stream({ model: SKU, input, tools }).finalResponse() : openai.responses.create({ model: SKU, input, tools }));
    const first = await ask();
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(call.type === 'function_call' && JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.type === 'function_call' ? call.call_id : '', output: 'sunny, 18°C' });
    const second = await ask();
    expect(second.output_text).toBe('Paris is sunny, 18°C.');
    expectConverseCalls(fake, streaming);
  });

  it.each([false, true])('serves a messages client a two-turn tool loop (streaming: %s)', async (streaming) => {
    const fake = await converseBackend(TOOL_TURNS);
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Current weather', input_schema: { ...WEATHER_SCHEMA } }];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const ask = () =>
      streaming
        ? anthropic.messages.stream({ model: SKU, max_tokens: 256, messages, tools, tool_choice: { type: 'any' } }).finalMessage()
        : anthropic.messages.create({ model: SKU, max_tokens: 256, messages, tools, tool_choice: { type: 'any' } });
    const first = await ask();
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((block) => block.type === 'tool_use')!;
    expect(use.type === 'tool_use' && use.input).toEqual({ city: 'Paris' });
    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.type === 'tool_use' ? use.id : '', content: 'sunny, 18°C' }] });
    const second = await ask();
    expect(second.content).toMatchObject([{ type: 'text', text: 'Paris is sunny, 18°C.' }]);
    expect(second.usage.output_tokens).toBeGreaterThan(0);
    expectConverseCalls(fake, streaming);
    expect(fake.requests[0]!.body.toolConfig.toolChoice).toEqual({ any: {} });
  });

  it.each([false, true])('counts cache reads apart from inputTokens into the prompt total, once (streaming: %s)', async (streaming) => {
    await converseBackend([{ text: 'Cached.', usage: { input: 100, output: 7, cached: 40 } }]);
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'hi' }];
    const reply = streaming
      ? await openai.chat.completions.stream({ model: SKU, messages, stream_options: { include_usage: true } }).finalChatCompletion()
      : await openai.chat.completions.create({ model: SKU, messages });
    expect(reply.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 7, total_tokens: 107, prompt_tokens_details: { cached_tokens: 40 } });
  });

  it('sends Claude over InvokeModel and another family over Converse from one backend', async () => {
    const fake = await converseBackend([{ text: 'From Nova.' }, { text: 'From Claude.' }]);
    const nova = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hi' }] });
    router.config.update((config) => {
      config.routes[SKU] = [`aws:${MODEL}`];
    });
    const claude = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hi' }] });
    expect([nova.choices[0]!.message.content, claude.choices[0]!.message.content]).toEqual(['From Nova.', 'From Claude.']);
    expect(fake.requests.map((request) => request.path)).toEqual([`/model/${encodeURIComponent(NOVA)}/converse`, `/model/${encodeURIComponent(MODEL)}/invoke`]);
    expect(fake.refused).toBe(0);
  });

  it.each([false, true])('names in svc_meta.warnings each setting Converse has no field for (streaming: %s)', async (streaming) => {
    const fake = await converseBackend([{ text: 'Done.' }]);
    const response = await fetch(`${router.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: SKU, stream: streaming, seed: 7, presence_penalty: 0.5, temperature: 0.2, stop: ['###'], response_format: { type: 'json_object' }, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const meta = streaming ? JSON.parse(text.split('\n').filter((line) => line.startsWith('data: {') && line.includes('svc_meta')).at(-1)!.slice(6)).svc_meta : JSON.parse(text).svc_meta;
    for (const name of ['seed', 'presence_penalty', 'response format (JSON object)']) expect(meta.warnings).toEqual(expect.arrayContaining([expect.stringContaining(`${name} not sent`)]));
    expect(fake.requests[0]!.body.inferenceConfig).toEqual({ temperature: 0.2, stopSequences: ['###'] });
    expect(fake.refused).toBe(0);
  });

  it('refuses an image given by URL with a 400 in the client format, and sends an inline one as bytes', async () => {
    const fake = await converseBackend([{ text: 'A red dot.' }]);
    const ask = (url: string) =>
      openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url } }] }] });
    const error = await ask('https://example.com/dot.png').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((error as Error).message).toContain('takes images only as data');
    expect(fake.requests).toHaveLength(0);
    const reply = await ask('data:image/png;base64,iVBORw0KGgo=');
    expect(reply.choices[0]!.message.content).toBe('A red dot.');
    expect(fake.requests[0]!.body.messages[0].content[1]).toEqual({ image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } });
  });

  it('gives a tool call id Converse cannot take one it can, the same for the call and its result', async () => {
    const fake = await converseBackend([{ text: 'Noted.' }]);
    const reply = await openai.chat.completions.create({
      model: SKU,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { ...WEATHER_SCHEMA } } }],
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call.with/odd:chars', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'call.with/odd:chars', content: 'snow' },
      ],
    });
    expect(reply.choices[0]!.message.content).toBe('Noted.');
    expect(fake.refused).toBe(0);
  });

  it.each([false, true])('answers a wrong secret on Converse with a 502 that carries neither the secret nor the session token (streaming: %s)', async (streaming) => {
    const wrong = 'WRONGsecretKEYwJalrXUtnFEMI0123456789abcd';
    const fake = await converseBackend([{ text: 'never' }]);
    process.env.AWS_SECRET_ACCESS_KEY = wrong;
    const response = await fetch(`${router.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: SKU, stream: streaming, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.text();
    expect(fake.refused).toBe(1);
    expect(fake.requests[0]!.path).toContain('/converse');
    expect(response.status).toBe(502);
    expect(text).not.toContain(wrong);
    expect(text).not.toContain(SESSION_TOKEN);
  });

  it("passes AWS's refusal of a Converse call on as a 400 in the client's format", async () => {
    await converseBackend([{ status: 400, errorBody: { type: 'error', error: { type: 'invalid_request_error', message: 'The model returned an invalid tool configuration.' } } }]);
    const error = await anthropic.messages.create({ model: SKU, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(400);
    expect((error as Error).message).toContain('The model returned an invalid tool configuration.');
  });

  it('ends a ConverseStream that AWS breaks off with an exception in an error event, with AWS words', async () => {
    await converseBackend([{ text: 'A long answer that will not finish', chunkSize: 4 }], { streamException: { afterEvents: 4, type: 'modelStreamErrorException', message: 'The model stopped unexpectedly.' } });
    const response = await fetch(`${router.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': router.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: SKU, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.text();
    expect(text).toContain('event: message_start');
    const last = text.trim().split('\n\n').at(-1)!;
    expect(last).toContain('event: error');
    expect(last).toContain('modelStreamErrorException: The model stopped unexpectedly.');
    expect(text).not.toContain('message_stop');
  });
});
