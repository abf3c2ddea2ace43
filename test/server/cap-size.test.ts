import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCount } from '../../src/core/format-numbers.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { bodyFor, callFormat, CLIENT_FORMATS, expectErrorReply, headersFor, send } from '../reliability/support.js';

const SKU = 'svc.intelligent-basic';
const CAP = 1_000;
const USED = 814;
/** About 2 MB of prompt: some 500,000 tokens by the router's estimate, 500 times the cap. */
const HUGE_PROMPT = 'lorem ipsum dolor sit amet '.repeat(74_075);

let router: TestRouter;
let developers = 0;

beforeAll(async () => {
  router = await startRouter();
});
afterAll(() => router.close());

/** A key of a new developer with the cap, who has already used `used` tokens today. */
function keyWithUsage(used: number): { key: string; developer: string } {
  const developer = `capped${++developers}`;
  const key = router.issueKey(developer, { capTokens: CAP });
  router.app.ledger.record({ ts: Date.now(), developer, inputTokens: used - 14, outputTokens: 14, requests: 1, requestId: `req_seed_${developer}` });
  return { key, developer };
}

async function tokensUsed(key: string): Promise<number> {
  const reply = await send({ origin: router.origin }, '/whoami', { headers: headersFor('chat', key) });
  expect(reply.status, reply.text).toBe(200);
  return reply.json.usage.tokens_used;
}

describe('the usage cap bounds the size of a request, not only whether one may start', () => {
  describe.each(CLIENT_FORMATS)('%s', (format) => {
    it.each([false, true])('refuses a prompt whose input alone exceeds what is left of the cap (stream: %s)', async (stream) => {
      const { key } = keyWithUsage(USED);
      const reply = await callFormat({ origin: router.origin, key }, format, bodyFor(format, SKU, stream, HUGE_PROMPT));
      expectErrorReply(format, reply, 429, 'rate_limit', 'usage_cap_exceeded');
      const message: string = reply.json.error.message;
      // It says what the request needs (about 500,000 tokens) and what is left (186).
      const needed = Number(/needs about ([\d,]+) input tokens/.exec(message)?.[1]?.replaceAll(',', ''));
      expect(needed).toBeGreaterThan(499_000);
      expect(needed).toBeLessThan(501_000);
      expect(message).toContain(`only ${formatCount(CAP - USED)} of ${formatCount(CAP)} tokens remain`);
      // Nothing was served, so nothing was billed.
      expect(await tokensUsed(key)).toBe(USED);
    });
  });

  it.each(CLIENT_FORMATS)('still serves a %s request that fits in what is left', async (format) => {
    const { key } = keyWithUsage(USED);
    const reply = await callFormat({ origin: router.origin, key }, format, bodyFor(format, SKU, false, 'a short question'));
    expect(reply.status, reply.text).toBe(200);
    expect(await tokensUsed(key)).toBeGreaterThan(USED);
  });

  it('draws the line at the estimate: an input of exactly what is left is served, one token more is refused', async () => {
    const remaining = CAP - USED;
    // About four characters a token: 4 × remaining characters estimate to exactly `remaining`.
    const fits = keyWithUsage(USED);
    const served = await callFormat({ origin: router.origin, key: fits.key }, 'chat', bodyFor('chat', SKU, false, 'x'.repeat(4 * remaining)));
    expect(served.status, served.text).toBe(200);
    expect(served.json.svc_meta.usage.input_tokens).toBe(remaining);

    const over = keyWithUsage(USED);
    const refused = await callFormat({ origin: router.origin, key: over.key }, 'chat', bodyFor('chat', SKU, true, 'x'.repeat(4 * remaining + 1)));
    expectErrorReply('chat', refused, 429, 'rate_limit', 'usage_cap_exceeded');
    expect(refused.json.error.message).toContain(`needs about ${formatCount(remaining + 1)} input tokens`);
    expect(await tokensUsed(over.key)).toBe(USED);
  });

  it('keeps the plain "cap reached" answer once nothing is left', async () => {
    const { key } = keyWithUsage(CAP);
    const reply = await callFormat({ origin: router.origin, key }, 'messages', bodyFor('messages', SKU, false, 'hi'));
    expectErrorReply('messages', reply, 429, 'rate_limit');
    expect(reply.json.error.message).toMatch(/^Usage cap reached: 1,000 of 1,000 tokens/);
  });
});

describe('every cap refusal says how to raise the cap, in each client format', () => {
  for (const format of CLIENT_FORMATS) {
    it(`${format}: the 429 at the cap and the 429 for a request too large both name keys cap`, async () => {
      const reached = keyWithUsage(CAP);
      const atCap = await callFormat({ origin: router.origin, key: reached.key }, format, bodyFor(format, SKU, false, 'hi'));
      expectErrorReply(format, atCap, 429, 'rate_limit');
      expect(atCap.json.error.message).toContain(`svc-router keys cap ${reached.developer} TOKENS`);

      const roomy = keyWithUsage(USED);
      const tooLarge = await callFormat({ origin: router.origin, key: roomy.key }, format, bodyFor(format, SKU, true, 'x'.repeat(4 * (CAP - USED) + 4)));
      expectErrorReply(format, tooLarge, 429, 'rate_limit');
      expect(tooLarge.json.error.message).toContain(`svc-router keys cap ${roomy.developer} TOKENS`);
    });
  }
});
