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

  it('refuses a model that is not Claude with a 400 that says what bedrock serves', async () => {
    const fake = await bedrock([{ text: 'never' }]);
    router.config.update((config) => {
      config.routes[SKU] = ['aws:amazon.nova-pro-v1:0'];
    });
    const error = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((error as Error).message).toContain('Anthropic Claude models only');
    expect(fake.requests).toHaveLength(0);
  });
});
