import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { forgetAccessTokens } from '../../src/backends/vertex/access-token.js';
import type { BackendSettings } from '../../src/config/settings.js';
import { sendJson, startFakeServer } from '../fakes/fake-server.js';
import { startMetadataServer } from '../fakes/google-auth.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { openResponsesSocket } from '../helpers/responses-socket.js';
import { send } from '../helpers/send.js';

/**
 * An upstream refusing the backend's own credentials is one answer, whatever the backend type and
 * whatever the client speaks: a 502 that names the backend, with code `upstream_auth` where the
 * format has codes (chat, responses, the Responses WebSocket) and `api_error` on messages, which
 * has none, and `x-should-retry: false`. Only Vertex's 401 differs, on purpose: the refused access
 * token is dropped and the next call fetches another, so a retry may pass.
 */

const MODEL = 'svc.intelligent-pro';
/** The key each backend is configured with; no answer may repeat it. */
const BACKEND_KEY = 'sk-test-backend-key-0123456789abcdef';

let router: TestRouter;
let upstream: Awaited<ReturnType<typeof startFakeServer>>;
let metadata: Awaited<ReturnType<typeof startMetadataServer>>;
const savedEnv = { ...process.env };

/** Refuses every call with the status its path names (`/s/401/…`), quoting the key it was sent, in the provider's shape. */
beforeAll(async () => {
  upstream = await startFakeServer(async (request, res) => {
    const status = Number(/^\/s\/(\d+)\//.exec(request.path)?.[1]);
    const sent = String(request.headers.authorization ?? request.headers['x-api-key'] ?? request.headers['x-goog-api-key'] ?? '');
    // Gemini says a wrong key with 400 INVALID_ARGUMENT and API_KEY_INVALID (ai.google.dev, troubleshooting).
    if (status === 400) return sendJson(res, 400, { error: { code: 400, message: `API key not valid. Please pass a valid API key. (${sent})`, status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] } });
    sendJson(res, status, { type: 'error', error: { type: 'authentication_error', message: `invalid credentials ${sent}` } });
  });
  metadata = await startMetadataServer();
  // Bedrock signs with the environment's keys; Vertex takes its token from the metadata server.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE', AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', GCE_METADATA_HOST: metadata.host });
  for (const name of ['AWS_SESSION_TOKEN', 'AWS_PROFILE', 'GOOGLE_APPLICATION_CREDENTIALS']) delete process.env[name];
  router = await startRouter({ capTokens: 1e12 });
});
afterAll(async () => {
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'GCE_METADATA_HOST', 'GOOGLE_APPLICATION_CREDENTIALS']) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
  await router.close();
  await Promise.all([upstream.close(), metadata.close()]);
});
afterEach(() => forgetAccessTokens());

interface Row {
  backend: string;
  /** The status the upstream refuses with. */
  status: number;
  settings(base: string): BackendSettings;
  model: string;
  retry: boolean;
  message: RegExp;
}

const keyed = (type: 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini', suffix = '') => (base: string): BackendSettings => ({ type, baseUrl: `${base}${suffix}`, apiKey: BACKEND_KEY });
const REJECTED = (status: number) => new RegExp(`^Backend 'b' rejected its API key \\(HTTP ${status}\\); check its key in svc-router backends\\.$`);

const ROWS: Row[] = [
  ...([401, 403] as const).flatMap((status): Row[] => [
    { backend: 'openai-chat', status, settings: keyed('openai-chat', '/v1'), model: 'gpt-test', retry: false, message: REJECTED(status) },
    { backend: 'openai-responses', status, settings: keyed('openai-responses', '/v1'), model: 'gpt-test', retry: false, message: REJECTED(status) },
    { backend: 'anthropic', status, settings: keyed('anthropic'), model: 'claude-test', retry: false, message: REJECTED(status) },
    { backend: 'gemini', status, settings: keyed('gemini'), model: 'gemini-test', retry: false, message: REJECTED(status) },
    { backend: 'bedrock', status, settings: (base) => ({ type: 'bedrock', baseUrl: base, region: 'us-east-1' }), model: 'anthropic.claude-test-v1:0', retry: false, message: REJECTED(status) },
  ]),
  { backend: 'gemini', status: 400, settings: keyed('gemini'), model: 'gemini-test', retry: false, message: REJECTED(400) },
  { backend: 'vertex', status: 403, settings: (base) => ({ type: 'vertex', baseUrl: base, project: 'p', region: 'us-east5' }), model: 'claude-test', retry: false, message: /^Backend 'b': Vertex AI denied its service account access/ },
  { backend: 'vertex', status: 401, settings: (base) => ({ type: 'vertex', baseUrl: base, project: 'p', region: 'us-east5' }), model: 'claude-test', retry: true, message: /^Backend 'b': Vertex AI refused its Google access token/ },
];

const CLIENTS = [
  { format: 'chat', path: '/v1/chat/completions', body: (stream: boolean) => ({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream }) },
  { format: 'responses', path: '/v1/responses', body: (stream: boolean) => ({ model: MODEL, input: 'hi', stream }) },
  { format: 'messages', path: '/v1/messages', body: (stream: boolean) => ({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }], stream }) },
] as const;

describe("an upstream refusing the backend's credentials", () => {
  for (const row of ROWS) {
    it(`${row.backend} answering ${row.status}: 502 upstream_auth on every format, streamed or not, and on the WebSocket`, async () => {
      router.config.update((settings) => {
        settings.backends = { b: row.settings(`${upstream.origin}/s/${row.status}`) };
        settings.routes[MODEL] = [`b:${row.model}`];
      });
      for (const client of CLIENTS) {
        for (const stream of [false, true]) {
          const headers: Record<string, string> = client.format === 'messages' ? { 'x-api-key': router.key, 'anthropic-version': '2023-06-01' } : { authorization: `Bearer ${router.key}` };
          const reply = await send(router, client.path, { headers: { ...headers, 'content-type': 'application/json' }, body: client.body(stream) });
          const where = `${client.format}${stream ? ', streamed' : ''}: ${reply.text}`;
          expect(reply.status, where).toBe(502);
          expect(reply.text, where).not.toContain(BACKEND_KEY);
          expect(reply.headers.get('x-should-retry'), where).toBe(String(row.retry));
          if (client.format === 'messages') {
            expect(reply.json.error, where).toEqual({ type: 'api_error', message: expect.stringMatching(row.message) });
          } else {
            expect(reply.json.error, where).toEqual({ type: 'upstream_error', code: 'upstream_auth', param: null, message: expect.stringMatching(row.message) });
          }
        }
      }
      const socket = await openResponsesSocket(router);
      try {
        const events = await socket.create({ model: MODEL, input: 'hi' });
        expect(events.at(-1)).toMatchObject({ type: 'error', status: 502, error: { type: 'upstream_error', code: 'upstream_auth', message: expect.stringMatching(row.message) } });
      } finally {
        socket.ws.terminate();
      }
    });
  }
});
