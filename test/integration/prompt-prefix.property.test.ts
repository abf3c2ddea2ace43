import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { firstChangedPart } from '../fakes/prompt-cache.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { clientSession } from './prompt-prefix/clients.js';
import { CLIENT_FORMATS, UPSTREAM_TYPES, sessionPlan, type ClientFormat, type SessionPlan, type UpstreamType } from './prompt-prefix/plan.js';
import { expectedCacheRead, promptParts, routeTo, startPlannedUpstream, type PlannedUpstream } from './prompt-prefix/upstreams.js';

/**
 * The same bill as going direct: providers cache prompts by exact prefix, so the upstream prompt
 * of turn k+1 must repeat turn k's (tools, system, every earlier message or item, key order and
 * all) wherever the client's own request does. For generated agent sessions in each client format
 * (parallel tool calls, results with images, hooks' system notes mid-conversation, files, reasoning
 * and its signatures replayed, sealed or not, Gemini's thought signatures carried in call ids,
 * schemas Gemini's sanitiser rewrites), on every upstream type, forwarded and translated, streamed
 * and not, each turn's upstream prompt, as the cache-aware fake splits it, must start with the
 * whole of the turn before, and read it back from the provider's cache.
 */

const RUNS = 12;

let router: TestRouter;
beforeAll(async () => {
  router = await startRouter({ capTokens: 1e15 });
});
afterAll(() => router?.close());

async function runSession(client: ClientFormat, upstream: UpstreamType, plan: SessionPlan): Promise<void> {
  const fake = await startPlannedUpstream(upstream, plan);
  try {
    routeTo(router, upstream, fake.url, plan);
    const session = clientSession(client, router, plan);
    for (const [index, turn] of plan.turns.entries()) {
      const calls = await session.send(turn.stream);
      if (index < plan.turns.length - 1) session.followUp(calls, turn.next);
    }
    if (fake.prompts.length !== plan.turns.length) throw new Error(`the upstream saw ${fake.prompts.length} prompts for ${plan.turns.length} turns`);
    for (let turn = 1; turn < fake.prompts.length; turn++) {
      const before = fake.prompts[turn - 1]!;
      const after = fake.prompts[turn]!;
      const changed = firstChangedPart(before, after);
      if (thinkingTurnedOff(client, upstream, plan, fake, turn, changed)) continue;
      if (changed < before.parts.length) {
        const was = promptParts(upstream, plan, fake.requests[turn - 1]!.body)[changed]!;
        const now = promptParts(upstream, plan, fake.requests[turn]!.body)[changed];
        throw new Error(
          `turn ${turn + 1} does not repeat turn ${turn}'s upstream prompt: it changed at ${after.parts[changed]?.label ?? '(the end)'} (part ${changed} of ${before.parts.length})\n` +
            `  turn ${turn}: ${was.text.slice(0, 400)}\n  turn ${turn + 1}: ${now?.text.slice(0, 400) ?? '(missing)'}`,
        );
      }
      const expected = expectedCacheRead(upstream, plan, before);
      if (after.cachedTokens < expected) {
        throw new Error(`turn ${turn + 1} read ${after.cachedTokens} cached tokens of the ${before.inputTokens} it repeats from turn ${turn}; going direct reads ${expected}`);
      }
    }
  } finally {
    await fake.close();
  }
}

/**
 * The one change allowed: a client that cannot replay Anthropic's signed thinking (no encrypted
 * reasoning asked for) replays a tool call without it, so thinking goes off for good
 * (src/backends/anthropic/thinking-budget.ts). Anthropic then keeps the tools and system cached
 * and writes the messages once more; every part of the prompt but the setting stays as it was.
 */
function thinkingTurnedOff(client: ClientFormat, upstream: UpstreamType, plan: SessionPlan, fake: PlannedUpstream, turn: number, changed: number): boolean {
  const before = fake.prompts[turn - 1]!;
  const after = fake.prompts[turn]!;
  const keepsSignatures = client === 'messages' || (client === 'responses' && plan.includeEncrypted);
  if (upstream !== 'anthropic' || keepsSignatures || before.parts[changed]?.kind !== 'settings') return false;
  const [was, now] = [fake.requests[turn - 1]!.body, fake.requests[turn]!.body];
  if (was.thinking?.type !== 'enabled' || now.thinking !== undefined || JSON.stringify(was.tool_choice) !== JSON.stringify(now.tool_choice)) return false;
  if (before.parts.some((part, index) => index !== changed && part.hash !== after.parts[index]?.hash)) return false;
  const toolsAndSystem = before.parts.slice(0, changed).reduce((sum, part) => sum + part.tokens, 0);
  if (after.cachedTokens < toolsAndSystem) throw new Error(`turn ${turn + 1} turned thinking off and read ${after.cachedTokens} cached tokens; the ${toolsAndSystem} of tools and system stay cached`);
  return true;
}

describe.each(CLIENT_FORMATS)('%s client', (client) => {
  it.each(UPSTREAM_TYPES)('→ %s upstream: each turn repeats the last one’s upstream prompt and reads it from the cache', async (upstream) => {
    await fc.assert(
      fc.asyncProperty(sessionPlan, (plan) => runSession(client, upstream, plan)),
      { numRuns: RUNS },
    );
  }, 120_000);
});
