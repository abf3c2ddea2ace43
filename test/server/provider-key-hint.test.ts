import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { expectNoKey } from '../reliability/key-texts.js';
import { CHAT_BODY, MESSAGES_BODY, RESPONSES_BODY, expectAnthropicError, expectOpenAIError, send } from './http-support.js';

/**
 * A provider's own key sent to the router (a leftover OPENAI_API_KEY or ANTHROPIC_API_KEY) is
 * refused with 401 in the endpoint's own error shape, saying whose key it is and where the svc
 * key is printed, on every endpoint and in either header, and never quoting the key.
 */

let router: TestRouter;
beforeAll(async () => {
  router = await startRouter();
});
afterAll(() => router.close());

const ENDPOINTS = [
  { method: 'POST', path: '/v1/chat/completions', body: CHAT_BODY, anthropic: false },
  { method: 'POST', path: '/v1/responses', body: RESPONSES_BODY, anthropic: false },
  { method: 'POST', path: '/v1/messages', body: MESSAGES_BODY, anthropic: true },
  { method: 'GET', path: '/v1/models', body: undefined, anthropic: false },
  { method: 'GET', path: '/whoami', body: undefined, anthropic: false },
] as const;

const alnum = (min: number, max: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9]{${min},${max}}$`));
const base64url = (min: number, max: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9_-]{${min},${max}}$`));

/** Keys as each provider's console issues them, and the provider the message must name. */
const providerKey = fc.oneof(
  base64url(80, 95).map((rest) => ({ key: `sk-ant-api03-${rest}AA`, provider: /Anthropic/ })),
  base64url(40, 60).map((rest) => ({ key: `sk-ant-admin01-${rest}`, provider: /Anthropic/ })),
  base64url(60, 160).map((rest) => ({ key: `sk-proj-${rest}`, provider: /OpenAI/ })),
  alnum(48, 48).map((rest) => ({ key: `sk-${rest}`, provider: /OpenAI/ })),
  base64url(35, 35).map((rest) => ({ key: `AIza${rest}`, provider: /Google/ })),
);

describe("a provider's key sent to the router", () => {
  for (const endpoint of ENDPOINTS) {
    for (const header of ['authorization', 'x-api-key'] as const) {
      it(`${endpoint.method} ${endpoint.path} in ${header}: 401 in the endpoint's shape, naming the provider and svc-router env, never the key`, async () => {
        await fc.assert(
          fc.asyncProperty(providerKey, async ({ key, provider }) => {
            const headers: Record<string, string> = header === 'authorization' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
            if (endpoint.anthropic) headers['anthropic-version'] = '2023-06-01';
            const reply = await send(router, endpoint.method, endpoint.path, { headers, body: endpoint.body });
            if (endpoint.anthropic) expectAnthropicError(reply, 401, 'authentication_error', provider);
            else expectOpenAIError(reply, 401, { type: 'authentication_error', code: 'invalid_api_key', param: null, message: provider });
            expect(reply.json.error.message).toMatch(/^Invalid API key: this is a provider's key/);
            expect(reply.json.error.message).toContain('`svc-router env`');
            expectNoKey(reply.text + JSON.stringify([...reply.headers]), key.replace(/^(?:sk-ant-api03-|sk-ant-admin01-|sk-proj-|sk-|AIza)/, ''), 'the 401');
          }),
          { numRuns: 8 },
        );
      });
    }
  }

  it('a wrong key of no provider shape gets the plain message', async () => {
    for (const key of [`svc_alice_${'A'.repeat(32)}`, 'not-a-key-at-all', 'sk-short']) {
      const reply = await send(router, 'GET', '/whoami', { headers: { authorization: `Bearer ${key}` } });
      expectOpenAIError(reply, 401, { type: 'authentication_error', code: 'invalid_api_key', message: /^Invalid API key\. Check the key/ });
    }
  });
});
