import type { SessionLimit, Settings } from '../config/settings.js';
import { RouterError } from '../core/errors.js';
import { formatCount, formatUsd } from '../core/format-numbers.js';
import type { Usage } from '../core/reply.js';
import type { CanonicalRequest } from '../core/request.js';
import { warn } from '../core/warnings.js';
import type { Session } from '../routing/session-key.js';
import { OFFLINE_BACKEND, type Target } from '../core/target.js';
import type { SharedState } from '../shared-state/shared-state.js';
import type { Spend, SpendCaps, SpendVerdict } from '../shared-state/spend.js';
import { costNanoUsd, NANO_PER_USD, priceFor, usdOf } from '../usage/prices.js';
import { priceProviderOfBackend } from '../backends/registry.js';
import type { Admission, Policy, PolicyInput } from './policy.js';

/**
 * A cap on each client session's use (`limits.session`: tokens, US dollars or both), for a runaway
 * agent loop that the key's 30-day cap would let run for days. The session is the one session
 * affinity keeps (src/routing/session-key.ts: a hash of caller and the session the client names);
 * a request that names none is not capped by it. Held and settled as the usage cap is: the
 * request's input and max output (and their price at the dearest target of its chain) are held
 * before it is forwarded, in one step with the session's other requests in flight on every router
 * sharing the state, and settled to what it used. See docs/teams.md.
 */
export const sessionCap: Policy = {
  name: 'session-cap',
  admit(input) {
    const caps = capsOf(input.settings.limits.session);
    const session = caps && input.session;
    return session ? admit(input, session, caps) : undefined;
  },
};

async function admit(input: PolicyInput, session: Session, caps: SpendCaps): Promise<Admission> {
  const { settings, request, estimatedTokens } = input;
  const output = request.maxOutputTokens ?? settings.limits.outputReserveTokens;
  const minimum: Spend = { tokens: estimatedTokens, nanoUsd: 0 };
  const wanted: Spend = { tokens: estimatedTokens + output, nanoUsd: 0 };
  if (caps.nanoUsd !== undefined) {
    // No target with a price: nothing is held in dollars, and the settlement says what it could not count.
    const dearest = dearestCost(settings, input.targets, request.model, estimatedTokens, output);
    if (dearest) [minimum.nanoUsd, wanted.nanoUsd] = dearest;
  }
  const verdict = await input.shared.reserveSpend(session.id, { requestId: input.requestId, caps, minimum, wanted, holdTtlMs: settings.limits.reservationTtlMs });
  if (!verdict.granted) throw refusal(verdict, caps, session, minimum);
  return new SessionAdmission(input.shared, session.id, input.requestId, request, caps, verdict);
}

/** A hold for the request: its usage settles it; a failure gives it back. */
class SessionAdmission implements Admission {
  readonly note: string;

  constructor(
    private readonly shared: SharedState,
    private readonly scope: string,
    private readonly requestId: string,
    private readonly request: CanonicalRequest,
    private readonly caps: SpendCaps,
    verdict: SpendVerdict,
  ) {
    this.note = `within the session cap: ${describeUse(verdict.used, caps)} used`;
  }

  settle(usage: Usage, cost: number | undefined): void {
    const tokens = usage.inputTokens + usage.outputTokens;
    if (this.caps.nanoUsd !== undefined && cost === undefined && tokens > 0) {
      // Named, not silently left out: the dollars cap cannot count what has no price.
      warn(
        this.request,
        `This request's cost is not known (its upstream model has no price), so it does not count toward the session's US dollar cap (limits.session.usd); price the model with svc-router prices set MODEL --input USD --output USD.`,
      );
    }
    this.shared.settleSpend(this.scope, this.requestId, { tokens, nanoUsd: cost ?? 0 });
  }

  release(): void {
    this.shared.releaseSpend(this.scope, this.requestId);
  }
}

/** The caps in force: positive finite limits only (a hand-edited zero or negative is no cap). */
function capsOf(limit: SessionLimit | undefined): SpendCaps | undefined {
  if (!limit) return undefined;
  const tokens = positive(limit.tokens);
  const usd = positive(limit.usd);
  if (tokens === undefined && usd === undefined) return undefined;
  return { ...(tokens !== undefined ? { tokens: Math.floor(tokens) } : {}), ...(usd !== undefined ? { nanoUsd: Math.round(usd * NANO_PER_USD) } : {}) };
}

const positive = (value: number | undefined): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined);

/**
 * What the request's input, and its input with its whole max output, would cost at the dearest
 * target of its chain that has a price (the target that answers is not known yet); undefined when
 * none has one.
 */
function dearestCost(settings: Settings, targets: readonly Target[], model: string, input: number, output: number): [number, number] | undefined {
  let dearest: [number, number] | undefined;
  for (const target of targets) {
    // As the answer will be priced: the built-in offline backend is free unless the config prices it.
    const price = priceFor(settings.prices, target.backend, target.upstreamModel ?? model, target.backend === OFFLINE_BACKEND, priceProviderOfBackend(settings, target.backend));
    const least = costNanoUsd({ inputTokens: input, outputTokens: 0 }, price);
    const most = costNanoUsd({ inputTokens: input, outputTokens: output }, price);
    if (least === undefined || most === undefined) continue;
    if (!dearest || most > dearest[1]) dearest = [least, most];
  }
  return dearest;
}

/** "1,200 of 10,000 tokens, $0.0120 of $5.00": each limit in force. */
function describeUse(spend: Spend, caps: SpendCaps): string {
  const parts: string[] = [];
  if (caps.tokens !== undefined) parts.push(`${formatCount(spend.tokens)} of ${formatCount(caps.tokens)} tokens`);
  if (caps.nanoUsd !== undefined) parts.push(`${formatUsd(usdOf(spend.nanoUsd))} of ${formatUsd(usdOf(caps.nanoUsd))}`);
  return parts.join(', ');
}

/** The refusal: which limit, what is used and held, the session by the name the router keeps it under, and how to raise it. */
function refusal(verdict: SpendVerdict, caps: SpendCaps, session: Session, needed: Spend): RouterError {
  const limit = verdict.refusedBy ?? 'tokens';
  const cap = caps[limit]!;
  const bare = (value: number) => (limit === 'tokens' ? formatCount(value) : formatUsd(usdOf(value)));
  const amount = (value: number) => (limit === 'tokens' ? `${formatCount(value)} tokens` : formatUsd(usdOf(value)));
  const { used, held } = verdict;
  const holding = held[limit] > 0 ? `, and its requests in flight hold ${amount(held[limit])}` : '';
  const raise =
    limit === 'tokens'
      ? 'svc-router config set limits.session.tokens TOKENS'
      : 'svc-router config set limits.session.usd DOLLARS';
  const how = `Start a new session, or raise the cap where the router runs (${raise}; it applies at once). A session idle for an hour starts again at nothing.`;
  const named = `session ${session.id} (the router's name for the session your client names in its session header, prompt_cache_key or metadata.user_id)`;
  const message =
    used[limit] + held[limit] >= cap
      ? `Session cap reached: ${named} has used ${bare(used[limit])} of its ${amount(cap)}${holding}. ${how}`
      : `Request too large for the session cap: it needs about ${amount(needed[limit])} for its input, but only ${amount(cap - used[limit] - held[limit])} of ${named}'s ${amount(cap)} remain${holding}. Shorten the request, or: ${how}`;
  return new RouterError(429, 'rate_limit', message, undefined, 'session_cap_exceeded');
}
