import http, { type IncomingHttpHeaders } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BackendSettings } from '../../src/config/settings.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { SKU, startUpstream, UPSTREAM_KEY, UPSTREAM_KINDS, type UpstreamKind } from './support.js';

/**
 * What reaches an upstream besides the body: the protocol version and betas, and the key. Every
 * client below sends the same headers, whatever its format: the router key in both places a client
 * may put it, a newer anthropic-version than the router's own default, an anthropic-beta, an
 * OpenAI-Beta, a cookie and a hop-by-hop header it names in Connection. Each upstream must get
 * exactly what the rule gives (src/backends/anthropic/upstream-headers.ts, forwardHeaders of each
 * format), its own key in the one form its settings say, and nothing else of the client's.
 */

const CLIENT_VERSION = '2026-10-21';
const CLIENT_BETA = 'client-beta-2026-01-01';
const CLIENT_OPENAI_BETA = 'responses=client-opt-in';
const PINNED_VERSION = '2024-01-01';
const TRANSLATED_VERSION = '2023-06-01';

type ClientFormat = 'chat' | 'responses' | 'messages';
const CLIENTS: readonly ClientFormat[] = ['chat', 'responses', 'messages'];
/** The backend type that speaks each client's format: its body is forwarded, and its client's headers with it. */
const SAME_FORMAT: Record<ClientFormat, UpstreamKind> = { chat: 'openai-chat', responses: 'openai-responses', messages: 'anthropic' };

let router: TestRouter;
const open: FakeUpstream[] = [];
beforeAll(async () => {
  router = await startRouter();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((fake) => fake.close()));
});
afterAll(() => router.close());

function clientHeaders(key: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    authorization: `Bearer ${key}`,
    'x-api-key': key,
    'anthropic-version': CLIENT_VERSION,
    'anthropic-beta': CLIENT_BETA,
    'openai-beta': CLIENT_OPENAI_BETA,
    cookie: `session=${key}`,
    'proxy-authorization': `Basic ${Buffer.from(`me:${key}`).toString('base64')}`,
    connection: 'keep-alive, x-hop-only',
    'x-hop-only': 'for the next hop only',
  };
}

const BODIES: Record<ClientFormat, { path: string; body: unknown }> = {
  chat: { path: '/v1/chat/completions', body: { model: SKU, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] } },
  responses: { path: '/v1/responses', body: { model: SKU, max_output_tokens: 16, input: 'hi' } },
  messages: { path: '/v1/messages', body: { model: SKU, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] } },
};

/** A raw request over a socket, so that every header (Connection included) goes as written. */
function post(path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; text: string }> {
  const url = new URL(path, router.origin);
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

async function upstream(kind: UpstreamKind, settings: Partial<BackendSettings> = {}, auth?: 'x-api-key' | 'bearer'): Promise<FakeUpstream> {
  const fake = kind === 'anthropic' && auth ? await startAnthropicUpstream([{ text: 'ok' }, { text: 'ok' }], { apiKey: UPSTREAM_KEY, auth }) : await startUpstream(kind, [{ text: 'ok' }, { text: 'ok' }]);
  open.push(fake);
  const baseUrl = kind === 'gemini' && settings.apiVersion ? fake.url.replace(/\/v1beta$/, '') : fake.url;
  router.config.update((draft) => {
    draft.backends.up = { type: kind, baseUrl, apiKey: UPSTREAM_KEY, ...settings };
    draft.routes[SKU] = ['up:upstream-model'];
  });
  return fake;
}

const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** The protocol headers the rule gives, by upstream type; undefined where a header must be absent. */
function expected(client: ClientFormat, kind: UpstreamKind, pinned?: string): Record<string, string | undefined> {
  const same = SAME_FORMAT[client] === kind;
  const none = { 'anthropic-version': undefined, 'anthropic-beta': undefined, 'openai-beta': undefined };
  if (kind === 'anthropic') {
    return { ...none, 'anthropic-version': pinned ?? (same ? CLIENT_VERSION : TRANSLATED_VERSION), 'anthropic-beta': same ? CLIENT_BETA : undefined };
  }
  if (kind === 'openai-chat' || kind === 'openai-responses') return { ...none, 'openai-beta': same ? CLIENT_OPENAI_BETA : undefined };
  return none;
}

/** The key: exactly one header carries it, in the form the backend's type and settings say, and nothing carries the router's. */
function expectUpstreamKeyOnly(headers: IncomingHttpHeaders, kind: UpstreamKind, auth: 'x-api-key' | 'bearer' = 'x-api-key'): void {
  const form = kind === 'gemini' ? 'x-goog-api-key' : kind === 'anthropic' && auth === 'x-api-key' ? 'x-api-key' : 'authorization';
  const value = form === 'authorization' ? `Bearer ${UPSTREAM_KEY}` : UPSTREAM_KEY;
  const credentials = ['authorization', 'x-api-key', 'x-goog-api-key', 'proxy-authorization', 'cookie'].filter((name) => headers[name] !== undefined);
  expect(credentials, 'credential headers sent upstream').toEqual([form]);
  expect(one(headers[form])).toBe(value);
  expect(JSON.stringify(headers)).not.toContain(router.key);
  expect(headers['x-hop-only'], 'a hop-by-hop header the client named in Connection').toBeUndefined();
}

function expectProtocol(headers: IncomingHttpHeaders, want: Record<string, string | undefined>): void {
  const got = Object.fromEntries(Object.keys(want).map((name) => [name, one(headers[name])]));
  expect(got).toEqual(want);
}

describe.each(CLIENTS)('a %s client', (client) => {
  it.each(UPSTREAM_KINDS.flatMap((kind) => [false, true].map((stream) => [kind, stream] as const)))('over a %s backend (streaming: %s): the version and betas the rule gives, and the upstream key alone', async (kind, stream) => {
    const fake = await upstream(kind);
    const { path, body } = BODIES[client];
    const reply = await post(path, clientHeaders(router.key), { ...(body as object), stream });
    expect(reply.status, reply.text).toBe(200);
    expect(fake.requests).toHaveLength(1);
    const { headers } = fake.requests[0]!;
    expectProtocol(headers, expected(client, kind));
    expectUpstreamKeyOnly(headers, kind);
  });

  it.each(['x-api-key', 'bearer'] as const)('over an anthropic backend that takes its key as %s and pins a version: that form only, the pinned version', async (auth) => {
    const fake = await upstream('anthropic', { auth, anthropicVersion: PINNED_VERSION }, auth);
    const { path, body } = BODIES[client];
    const reply = await post(path, clientHeaders(router.key), body);
    expect(reply.status, reply.text).toBe(200);
    const { headers } = fake.requests[0]!;
    expectProtocol(headers, expected(client, 'anthropic', PINNED_VERSION));
    expectUpstreamKeyOnly(headers, 'anthropic', auth);
  });
});

describe('count_tokens over an anthropic backend', () => {
  it.each([
    { name: 'default', settings: {}, version: CLIENT_VERSION },
    { name: 'bearer, pinned', settings: { auth: 'bearer' as const, anthropicVersion: PINNED_VERSION }, version: PINNED_VERSION },
  ])('$name: the client’s betas, the version the rule gives, the upstream key in its form', async ({ settings, version }) => {
    const fake = await upstream('anthropic', settings, settings.auth);
    const reply = await post('/v1/messages/count_tokens', clientHeaders(router.key), { model: SKU, messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.status, reply.text).toBe(200);
    expect(fake.requests.map((request) => request.path)).toEqual(['/v1/messages/count_tokens']);
    const { headers } = fake.requests[0]!;
    expectProtocol(headers, { 'anthropic-version': version, 'anthropic-beta': CLIENT_BETA, 'openai-beta': undefined });
    expectUpstreamKeyOnly(headers, 'anthropic', settings.auth);
  });

  it.each(['/v1/messages', '/v1/messages/count_tokens'])('%s: a version named under the spec’s alias (vendor-version) reaches the upstream as anthropic-version', async (path) => {
    const fake = await upstream('anthropic');
    const { 'anthropic-version': _, ...headers } = clientHeaders(router.key);
    const reply = await post(path, { ...headers, 'vendor-version': CLIENT_VERSION }, BODIES.messages.body);
    expect(reply.status, reply.text).toBe(200);
    expect(fake.requests.map((request) => request.path)).toEqual([path]);
    expect(one(fake.requests[0]!.headers['anthropic-version'])).toBe(CLIENT_VERSION);
    expect(fake.requests[0]!.headers['vendor-version']).toBeUndefined();
  });
});

describe('a gemini backend’s API version', () => {
  it.each([
    { apiVersion: undefined, path: /^\/v1beta\/models\/upstream-model:generateContent$/ },
    { apiVersion: 'v1', path: /^\/v1\/models\/upstream-model:generateContent$/ },
  ])('apiVersion $apiVersion: the path names it', async ({ apiVersion, path }) => {
    const fake = await upstream('gemini', apiVersion ? { apiVersion } : {});
    const reply = await post(BODIES.chat.path, clientHeaders(router.key), BODIES.chat.body);
    expect(reply.status, reply.text).toBe(200);
    expect(fake.requests[0]!.path).toMatch(path);
  });
});
