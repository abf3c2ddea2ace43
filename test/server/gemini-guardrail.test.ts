import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SecretsMode } from '../../src/config/settings.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { send } from '../helpers/send.js';
import { addBackend, setRoute, SKU, startUpstream } from '../integration/support.js';

/**
 * The secrets guardrail reads a Gemini client's request as it reads the other doors' (the policies
 * see the canonical request and the body forwarded to a Gemini upstream alike): on every place a
 * model reads (system instruction, function declarations, user text, a replayed call's arguments,
 * a function's response), forwarded and translated, streamed and not, and on countTokens.
 */

const join = (...parts: string[]) => parts.join('');
const AWS = join('AKIA', 'Q7Z2LW4MBN3XT5RY');
const GITHUB = join('ghp_', 'Zq8wX3vB7nM2kL9pR4tY6uI1oE5aS0dF7gH2');
const PASSWORD = join('Tr0ub4dor', '_3xyz');
const VALUES = [AWS, GITHUB, PASSWORD];

const BODY = {
  systemInstruction: { parts: [{ text: `Deploy account ${AWS}.` }] },
  tools: [{ functionDeclarations: [{ name: 'run', description: `Uses ${GITHUB}.`, parametersJsonSchema: { type: 'object', properties: { command: { type: 'string' } } } }] }],
  contents: [
    { role: 'user', parts: [{ text: `Check the repo with ${GITHUB}.` }] },
    { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'run', args: { command: `mysql --password=${PASSWORD}` } }, thoughtSignature: 'skip_thought_signature_validator' }] },
    { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'run', response: { output: `DB_PASSWORD=${PASSWORD}` } } }] },
  ],
};

let router: TestRouter;
const upstreams: Record<string, FakeUpstream> = {};
beforeAll(async () => {
  router = await startRouter({ capTokens: 1e12 });
  for (const kind of ['gemini', 'anthropic'] as const) {
    upstreams[kind] = await startUpstream(kind, [{ text: 'done', usage: { input: 50, output: 2 } }]);
    addBackend(router, kind, kind, upstreams[kind].url);
  }
});
afterEach(() =>
  router.config.update((settings) => {
    settings.guardrails.secrets = 'off';
  }),
);
afterAll(async () => {
  await Promise.all(Object.values(upstreams).map((upstream) => upstream.close()));
  await router.close();
});

async function exchange(mode: SecretsMode, kind: 'gemini' | 'anthropic', method: string) {
  router.config.update((settings) => {
    settings.guardrails.secrets = mode;
  });
  setRoute(router, SKU, [`${kind}:${kind === 'gemini' ? 'gemini-2.5-flash' : 'claude-sonnet-4-5'}`]);
  const before = upstreams[kind]!.requests.length;
  const reply = await send(router, `/v1beta/models/${SKU}:${method}`, { headers: { 'x-goog-api-key': router.key }, body: BODY });
  const sent = upstreams[kind]!.requests.slice(before);
  return { reply, upstream: sent.length ? JSON.stringify(sent.at(-1)!.body) : undefined };
}

const cases = (['gemini', 'anthropic'] as const).flatMap((kind) => ['generateContent', 'streamGenerateContent?alt=sse'].map((method) => ({ kind, method, way: kind === 'gemini' ? 'forwarded' : 'translated' })));

describe('the secrets guardrail on the Gemini door', () => {
  it.each(cases)('warn: $way ($kind), $method: names each kind and where, never the value', async ({ kind, method }) => {
    const { reply, upstream } = await exchange('warn', kind, method);
    expect(reply.status, reply.text).toBe(200);
    const header = reply.headers.get('x-svc-warning') ?? '';
    for (const found of ['aws-access-key', 'github-token', 'password']) expect(header).toContain(found);
    expect(header).toMatch(/contents\[\d+\]/);
    for (const value of VALUES) {
      expect(header + reply.text).not.toContain(value);
      expect(upstream).toContain(value);
    }
  });

  it.each(cases)('mask: $way ($kind), $method: the upstream sees placeholders', async ({ kind, method }) => {
    const { reply, upstream } = await exchange('mask', kind, method);
    expect(reply.status, reply.text).toBe(200);
    for (const value of VALUES) expect(upstream).not.toContain(value);
    for (const placeholder of ['[secret:aws-access-key:1]', '[secret:github-token:1]', '[secret:password:1]']) expect(upstream).toContain(placeholder);
  });

  it.each(cases)("refuse: $way ($kind), $method: 400 INVALID_ARGUMENT in Google's shape, nothing sent upstream", async ({ kind, method }) => {
    const { reply, upstream } = await exchange('refuse', kind, method);
    expect(reply.status).toBe(400);
    expect(upstream).toBeUndefined();
    expect(reply.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('aws-access-key') });
    for (const value of VALUES) expect(reply.text).not.toContain(value);
  });

  it('holds countTokens to the same rule', async () => {
    router.config.update((settings) => {
      settings.guardrails.secrets = 'refuse';
    });
    const reply = await send(router, `/v1beta/models/${SKU}:countTokens`, { headers: { 'x-goog-api-key': router.key }, body: { contents: BODY.contents } });
    expect(reply.status).toBe(400);
    expect(reply.json.error.status).toBe('INVALID_ARGUMENT');
  });
});
