import type { ApiResponse } from './api.js';
import type { RequestContext } from './context.js';
import { usdOf } from '../usage/prices.js';

/** GET /whoami: who the key belongs to and how much of the 30-day cap is used. */
export async function handleWhoami({ app, identity }: RequestContext): Promise<ApiResponse> {
  const usage = await app.ledger.summary(identity.developer, undefined, true);
  return {
    status: 200,
    json: {
      object: 'identity',
      developer: identity.developer,
      organisation: identity.organisation,
      tier: identity.tier,
      usage: {
        window_days: usage.windowDays,
        window_start: usage.windowStart.toISOString(),
        input_tokens: usage.inputTokens,
        output_tokens: usage.outputTokens,
        tokens_used: usage.totalTokens,
        requests: usage.requests,
        cap_tokens: identity.capTokens,
        remaining_tokens: Math.max(0, identity.capTokens - usage.totalTokens),
        // The cost of the requests whose price is known; null when none in the window had one.
        cost_usd: usage.requests > 0 && usage.unpricedRequests === usage.requests ? null : usdOf(usage.costNanoUsd),
        unpriced_requests: usage.unpricedRequests,
      },
    },
  };
}
