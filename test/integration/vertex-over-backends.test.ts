import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import OpenAI, { APIError } from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { forgetAccessTokens } from '../../src/backends/vertex/access-token.js';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startGeminiUpstream } from '../fakes/gemini-upstream.js';
import { startGoogleTokenEndpoint, startMetadataServer, type GoogleTokenSource } from '../fakes/google-auth.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startVertexUpstream } from '../fakes/vertex-upstream.js';
import { startRouter, tempHome, type TestRouter } from '../helpers/router.js';
import { SKU, setRoute, WEATHER_SCHEMA } from './support.js';

/**
 * The three client formats over a `vertex` backend, for a Claude and a Gemini model: the router
 * signs a service account's JWT, exchanges it at a fake Google token endpoint that verifies the
 * signature, and calls a fake Vertex AI that checks the token and has the Anthropic or Gemini
 * fake answer.
 */

const PROJECT = 'acme-prod-42';
const REGION = 'us-east5';
const CLIENT_EMAIL = 'router@acme-prod-42.iam.gserviceaccount.com';
const PUBLISHER_KEY = 'publisher-fake-key-0123';
const BACKEND = 'gcp';

let router: TestRouter;
let openai: OpenAI;
let anthropic: Anthropic;
let google: GoogleGenAI;
// The service account's key pair, made for this run (the it.each table below needs it when collected).
const keys: { privateKey: KeyObject; publicKey: KeyObject } = generateKeyPairSync('rsa', { modulusLength: 2048 });
let dir: string;
const open: FakeUpstream[] = [];

beforeAll(async () => {
  router = await startRouter();
  openai = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
  google = new GoogleGenAI({ apiKey: router.key, httpOptions: { baseUrl: router.origin } });
  dir = tempHome();
});
beforeEach(() => forgetAccessTokens());
afterEach(async () => {
  await Promise.all(open.splice(0).map((fake) => fake.close()));
});
afterAll(() => router.close());

const PEM = (): string => keys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

function keyFile(name: string, contents: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof contents === 'string' ? contents : JSON.stringify(contents));
  return file;
}

const serviceAccount = (tokenUri: string, privateKey = PEM()) => ({
  type: 'service_account',
  project_id: PROJECT,
  private_key_id: 'kid-1',
  private_key: privateKey,
  client_email: CLIENT_EMAIL,
  token_uri: tokenUri,
});

/** Publisher fakes, the fake Vertex in front of them, and a token source; the SKU routed to `model` on the vertex backend. */
async function overVertex(model: string, turns: ScriptedTurn[], auth: { credentials?: string; source: GoogleTokenSource }, extra: { quoteRefusedToken?: boolean } = {}) {
  const claudeFake = await startAnthropicUpstream(turns, { apiKey: PUBLISHER_KEY });
  const geminiFake = await startGeminiUpstream(turns, { apiKey: PUBLISHER_KEY });
  const vertex = await startVertexUpstream({
    project: PROJECT,
    region: REGION,
    tokens: () => auth.source.issued,
    anthropic: { url: claudeFake.url, apiKey: PUBLISHER_KEY },
    gemini: { url: geminiFake.url, apiKey: PUBLISHER_KEY },
    ...extra,
  });
  open.push(claudeFake, geminiFake, vertex);
  router.config.update((settings) => {
    settings.backends[BACKEND] = { type: 'vertex', baseUrl: vertex.url, project: PROJECT, region: REGION, ...(auth.credentials ? { credentials: auth.credentials } : {}) };
  });
  setRoute(router, SKU, [`${BACKEND}:${model}`]);
  return { vertex };
}

async function withServiceAccount(model: string, turns: ScriptedTurn[], extra: { quoteRefusedToken?: boolean } = {}) {
  const source = await startGoogleTokenEndpoint({ clientEmail: CLIENT_EMAIL, publicKey: keys.publicKey });
  open.push(source);
  const credentials = keyFile('sa.json', serviceAccount(`${source.url}/token`));
  return { source, credentials, ...(await overVertex(model, turns, { credentials, source }, extra)) };
}

const TOOL_TURN: ScriptedTurn = { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], usage: { input: 40, output: 12 } };
const WEATHER = { type: 'object' as const, properties: WEATHER_SCHEMA.properties, required: WEATHER_SCHEMA.required };

/** Each client format's call with the weather tool: the tool call it got back, as name and parsed arguments. */
const CLIENTS = {
  chat: async (stream: boolean) => {
    const params = { model: SKU, messages: [{ role: 'user' as const, content: 'Weather in Paris?' }], tools: [{ type: 'function' as const, function: { name: 'get_weather', description: 'Current weather for a city', parameters: WEATHER } }] };
    const completion = stream ? await openai.chat.completions.stream(params).finalChatCompletion() : await openai.chat.completions.create(params);
    const call = completion.choices[0]!.message.tool_calls![0]! as { function: { name: string; arguments: string } };
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    return { name: call.function.name, args: JSON.parse(call.function.arguments) };
  },
  responses: async (stream: boolean) => {
    const params = { model: SKU, input: 'Weather in Paris?', tools: [{ type: 'function' as const, name: 'get_weather', description: 'Current weather for a city', parameters: WEATHER, strict: false }] };
    const response = stream ? await openai.responses.stream(params).finalResponse() : await openai.responses.create(params);
    const call = response.output.find((item) => item.type === 'function_call') as { name: string; arguments: string };
    return { name: call.name, args: JSON.parse(call.arguments) };
  },
  messages: async (stream: boolean) => {
    const params = { model: SKU, max_tokens: 256, messages: [{ role: 'user' as const, content: 'Weather in Paris?' }], tools: [{ name: 'get_weather', description: 'Current weather for a city', input_schema: WEATHER }] };
    const message = stream ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
    expect(message.stop_reason).toBe('tool_use');
    const call = message.content.find((block) => block.type === 'tool_use') as { name: string; input: unknown };
    return { name: call.name, args: call.input };
  },
  gemini: async (stream: boolean) => {
    const params = { model: SKU, contents: 'Weather in Paris?', config: { tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Current weather for a city', parametersJsonSchema: WEATHER }] }] } };
    if (!stream) return (({ name, args }) => ({ name, args }))((await google.models.generateContent(params)).functionCalls![0]!);
    const calls = [];
    for await (const chunk of await google.models.generateContentStream(params)) calls.push(...(chunk.functionCalls ?? []));
    return { name: calls[0]!.name, args: calls[0]!.args };
  },
};

const MODELS = [
  { model: 'claude-sonnet-4-5', method: (stream: boolean) => (stream ? 'streamRawPredict' : 'rawPredict'), publisher: 'anthropic' },
  { model: 'gemini-2.5-pro', method: (stream: boolean) => (stream ? 'streamGenerateContent?alt=sse' : 'generateContent'), publisher: 'google' },
];

describe.each(MODELS)('$model on a vertex backend', ({ model, method, publisher }) => {
  it.each(['chat', 'responses', 'messages', 'gemini'] as const)('a %s client gets the tool call, streamed and not, with one token for every call', async (client) => {
    const { source, vertex } = await withServiceAccount(model, [TOOL_TURN]);
    for (const stream of [false, true]) expect(await CLIENTS[client](stream)).toEqual({ name: 'get_weather', args: { city: 'Paris' } });

    // One token, fetched once and sent as the bearer on every call.
    expect(source.requests).toHaveLength(1);
    expect(source.issued).toHaveLength(1);
    expect(vertex.requests.map((request) => request.path)).toEqual([false, true].map((stream) => `/v1/projects/${PROJECT}/locations/${REGION}/publishers/${publisher}/models/${model}:${method(stream)}`));
    for (const request of vertex.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${source.issued[0]}`);
      expect(JSON.stringify(request.headers)).not.toContain(router.key);
    }
    const body = vertex.requests[0]!.body;
    if (publisher === 'anthropic') {
      expect(body.anthropic_version).toBe('vertex-2023-10-16');
      expect(body).not.toHaveProperty('model');
      expect(body.tools.map((tool: { name: string }) => tool.name)).toEqual(['get_weather']);
    } else {
      expect(body.tools[0].functionDeclarations.map((tool: { name: string }) => tool.name)).toEqual(['get_weather']);
    }
  });
});

describe("a Gemini client's calls to a Gemini model on vertex", () => {
  it('go as the client sent them, byte for byte, and the reply comes back as Vertex sent it, but for modelVersion and svc_meta', async () => {
    const { vertex } = await withServiceAccount('gemini-2.5-pro', [{ text: 'Forwarded through Vertex.', usage: { input: 8, output: 4 } }]);
    const body = '{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"temperature":0.3}}';
    const response = await fetch(`${router.origin}/v1beta/models/${SKU}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': router.key }, body });
    const reply = (await response.json()) as Record<string, any>;
    expect(vertex.requests[0]!.rawBody).toBe(body);
    expect(reply).toMatchObject({ modelVersion: SKU, svc_meta: { backend: BACKEND, upstream_model: 'gemini-2.5-pro', usage: { input_tokens: 8, output_tokens: 4 } } });
    // Fields the router does not model reach the client: the fake's usage by modality.
    expect(reply.usageMetadata.promptTokensDetails).toEqual([{ modality: 'TEXT', tokenCount: 8 }]);
  });
});

describe('Google credentials', () => {
  it('renews a token only when it is near its end: several calls, one token request while it lasts', async () => {
    const { source } = await withServiceAccount('gemini-2.5-flash', [{ text: 'hi' }]);
    for (let i = 0; i < 4; i++) await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: `call ${i}` }] });
    expect(source.requests).toHaveLength(1);
  });

  it('fetches one token for calls that start together', async () => {
    const { source } = await withServiceAccount('claude-haiku-4-5', [{ text: 'hi' }]);
    await Promise.all([0, 1, 2, 3].map((i) => anthropic.messages.create({ model: SKU, max_tokens: 32, messages: [{ role: 'user', content: `call ${i}` }] })));
    expect(source.requests).toHaveLength(1);
  });

  it('asks again for a token that expires within minutes', async () => {
    const source = await startGoogleTokenEndpoint({ clientEmail: CLIENT_EMAIL, publicKey: keys.publicKey }, { expiresIn: 60 });
    open.push(source);
    const credentials = keyFile('short.json', serviceAccount(`${source.url}/token`));
    await overVertex('gemini-2.5-flash', [{ text: 'hi' }], { credentials, source });
    for (let i = 0; i < 2; i++) await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: `call ${i}` }] });
    expect(source.requests).toHaveLength(2);
  });

  it('uses the metadata server without a key file (workload identity), with Metadata-Flavor: Google', async () => {
    const metadata = await startMetadataServer();
    open.push(metadata);
    const saved = { host: process.env.GCE_METADATA_HOST, file: process.env.GOOGLE_APPLICATION_CREDENTIALS };
    process.env.GCE_METADATA_HOST = metadata.host;
    delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
    try {
      const { vertex } = await overVertex('claude-haiku-4-5', [{ text: 'from claude' }], { source: metadata });
      const message = await anthropic.messages.create({ model: SKU, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
      expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'from claude' })]);
      expect(metadata.requests).toHaveLength(1);
      expect(metadata.requests[0]!.headers['metadata-flavor']).toBe('Google');
      expect(vertex.requests[0]!.headers.authorization).toBe(`Bearer ${metadata.issued[0]}`);
    } finally {
      if (saved.host === undefined) delete process.env.GCE_METADATA_HOST;
      else process.env.GCE_METADATA_HOST = saved.host;
      if (saved.file !== undefined) process.env.GOOGLE_APPLICATION_CREDENTIALS = saved.file;
    }
  });

  /** The client's error, which must name the problem and hold no part of the key file. */
  async function refusal(call: () => Promise<unknown>): Promise<APIError> {
    const error = await call().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    // Either SDK's APIError: a status and the body's error.
    expect(error).toBeInstanceOf(error instanceof Anthropic.APIError ? Anthropic.APIError : APIError);
    const text = JSON.stringify((error as APIError).error) + (error as APIError).message;
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain(PEM().split('\n')[1]!.slice(0, 24));
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
    return error as APIError;
  }

  it('a key the token endpoint does not know is a clear 502 naming the refusal, with no secret', async () => {
    const source = await startGoogleTokenEndpoint({ clientEmail: CLIENT_EMAIL, publicKey: keys.publicKey });
    open.push(source);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const credentials = keyFile('wrong.json', serviceAccount(`${source.url}/token`, other));
    await overVertex('gemini-2.5-flash', [{ text: 'never' }], { credentials, source });
    for (const stream of [false, true]) {
      const error = await refusal(() => (stream ? openai.chat.completions.stream({ model: SKU, messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion() : openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hi' }] })));
      expect(error.status).toBe(502);
      expect(error.message).toContain(`Backend '${BACKEND}' has no Google access token: the token endpoint`);
      expect(error.message).toContain('HTTP 400 (invalid_grant)');
      expect(JSON.stringify(error.error)).not.toContain(other.split('\n')[1]!.slice(0, 24));
    }
    expect(source.issued).toHaveLength(0);
  });

  it.each([
    ['not JSON', `{"type": "service_account", "private_key": "${['-----BEGIN ', 'PRIVATE KEY-----'].join('')}\\nMIIE`, 'is not JSON'],
    ['no service account', { type: 'authorized_user', client_secret: 'very-secret-client-0123', refresh_token: '1//refresh-token-0123' }, 'is not a service-account key'],
    ['a private key that is no key', { ...serviceAccount('https://oauth2.googleapis.com/token'), private_key: ['-----BEGIN ', 'PRIVATE KEY-----\n', 'not-base64-secret-material', '\n-----END ', 'PRIVATE KEY-----\n'].join('') }, 'is not a PEM private key'],
  ])('a key file with %s is a clear error naming the file, none of its contents', async (_case, contents, says) => {
    const source = await startGoogleTokenEndpoint({ clientEmail: CLIENT_EMAIL, publicKey: keys.publicKey });
    open.push(source);
    const credentials = keyFile('bad.json', contents);
    await overVertex('claude-sonnet-4-5', [{ text: 'never' }], { credentials, source });
    const error = await refusal(() => anthropic.messages.create({ model: SKU, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).then(() => undefined));
    expect(error.status).toBe(502);
    expect(error.message).toContain(`the Google credentials file ${credentials}`);
    expect(error.message).toContain(says);
    for (const secret of ['very-secret-client', 'refresh-token', 'not-base64-secret']) expect(error.message).not.toContain(secret);
    expect(source.requests).toHaveLength(0);
  });

  it('forgets a token Vertex refuses, fetches another for the next call, and never shows either', async () => {
    const { source } = await withServiceAccount('gemini-2.5-flash', [{ text: 'fine' }], { quoteRefusedToken: true });
    await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'first' }] });
    // Vertex stops taking the token it was given (revoked), and its refusal quotes it.
    const revoked = source.issued.splice(0);
    expect(revoked).toHaveLength(1);
    for (const stream of [false, true]) {
      const error = await refusal(() =>
        stream ? openai.chat.completions.stream({ model: SKU, messages: [{ role: 'user', content: 'again' }] }).finalChatCompletion() : openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'again' }] }),
      );
      expect(error.status).toBe(502);
      expect(error.message).toContain('Vertex AI refused its Google access token (HTTP 401)');
      expect(JSON.stringify(error.error) + error.message).not.toContain(revoked[0]!);
      // The next call has a fresh token, which Vertex takes.
      const completion = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'and again' }] });
      expect(completion.choices[0]!.message.content).toBe('fine');
      revoked.push(...source.issued.splice(0));
    }
    expect(source.requests).toHaveLength(3);
  });

  it('says a 403 is the service account lacking access to the project, keeping the token', async () => {
    const { source } = await withServiceAccount('claude-sonnet-4-5', [{ text: 'never' }]);
    router.config.update((settings) => {
      settings.backends[BACKEND]!.project = 'someone-elses';
    });
    for (let i = 0; i < 2; i++) {
      const error = await refusal(() => openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hi' }] }));
      expect(error.status).toBe(502);
      expect(error.message).toContain('Vertex AI denied its service account access to project someone-elses in us-east5 (HTTP 403)');
    }
    expect(source.requests).toHaveLength(1);
  });
});

it('refuses a model that is neither Claude nor Gemini with a clear 400', async () => {
  const source = await startGoogleTokenEndpoint({ clientEmail: CLIENT_EMAIL, publicKey: keys.publicKey });
  open.push(source);
  await overVertex('llama-3-70b', [{ text: 'never' }], { credentials: keyFile('sa2.json', serviceAccount(`${source.url}/token`)), source });
  const error = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hi' }] }).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(APIError);
  expect((error as APIError).status).toBe(400);
  expect((error as APIError).message).toContain("serves claude-* and gemini-* models; 'llama-3-70b' is neither");
});
