import type { RateLimitSettings } from '../config/settings.js';
import { RouterError } from '../core/errors.js';
import { formatCount } from '../core/format-numbers.js';
import type { Usage } from '../core/reply.js';
import type { SharedState, WindowVerdict } from '../shared-state/shared-state.js';
import type { Admission, Policy } from './policy.js';

/** Rate limits are per minute, as the upstreams' own (RPM, TPM). */
export const RATE_WINDOW_MS = 60_000;

/**
 * Per-key rate limits, for a key that has any: one request and its estimated input, per minute,
 * counted on arrival and corrected to the tokens used once they are known.
 */
export const rateLimit: Policy = {
  name: 'rate-limit',
  admit: (input) => (input.identity.rateLimit ? admit(input.shared, input.identity.developer, input.identity.rateLimit, input.estimatedTokens) : undefined),
};

const requestsKey = (developer: string): string => `rate:${developer}:requests`;
const tokensKey = (developer: string): string => `rate:${developer}:tokens`;

/**
 * Counts one request and its estimated input against the key's per-minute limits, in one atomic
 * step per limit on every router sharing the state (a sliding window: see shared-state.ts). A
 * request over a limit is refused with a 429 that says which limit, when to retry (`retry-after`)
 * and the `x-ratelimit-*` headers OpenAI's API sends; a request let through carries them too.
 */
export async function admit(state: SharedState, developer: string, limits: RateLimitSettings | undefined, estimatedTokens: number, now = Date.now()): Promise<Admission | undefined> {
  const rpm = positive(limits?.requestsPerMinute);
  const tpm = positive(limits?.tokensPerMinute);
  if (rpm === undefined && tpm === undefined) return undefined;
  const headers: Record<string, string> = {};
  let requests: WindowVerdict | undefined;
  if (rpm !== undefined) {
    requests = await state.take(requestsKey(developer), 1, rpm, RATE_WINDOW_MS, now);
    Object.assign(headers, limitHeaders('requests', rpm, requests));
    if (!requests.allowed) throw refusal(`Rate limit reached: ${formatCount(rpm)} requests per minute for this key.`, requests, headers);
  }
  if (tpm !== undefined) {
    if (estimatedTokens > tpm) {
      if (requests) state.add(requestsKey(developer), -1, RATE_WINDOW_MS, now);
      throw new RouterError(
        429,
        'rate_limit',
        `Request too large for this key's rate limit: it needs about ${formatCount(estimatedTokens)} input tokens, and the key may use ${formatCount(tpm)} tokens per minute. Shorten the request or ask for a higher limit.`,
        undefined,
        'rate_limit_exceeded',
        undefined,
        { headers: { ...headers, ...limitHeaders('tokens', tpm, { allowed: false, used: 0, retryAfterMs: 0, resetMs: 0 }) } },
      );
    }
    const tokens = await state.take(tokensKey(developer), estimatedTokens, tpm, RATE_WINDOW_MS, now);
    Object.assign(headers, limitHeaders('tokens', tpm, tokens));
    if (!tokens.allowed) {
      // Refused: the request counted above never happened.
      if (requests) state.add(requestsKey(developer), -1, RATE_WINDOW_MS, now);
      throw refusal(`Rate limit reached: ${formatCount(tpm)} tokens per minute for this key.`, tokens, headers);
    }
  }
  return new RateAdmission(headers, state, developer, estimatedTokens, tpm);
}

/** A request let through: the headers its answer carries, and the correction of its token estimate once its usage is known. */
class RateAdmission implements Admission {
  private settled = false;

  constructor(
    readonly headers: Record<string, string>,
    private readonly state: SharedState,
    private readonly developer: string,
    private readonly estimatedTokens: number,
    private readonly tokensPerMinute: number | undefined,
  ) {}

  settle(usage: Usage): void {
    this.correct(usage.inputTokens + usage.outputTokens);
  }

  /** The request still counts as one; its estimated input is taken back. */
  release(): void {
    this.correct(0);
  }

  /** Replaces the input estimate counted on arrival with the tokens the request really used. */
  private correct(used: number): void {
    if (this.settled || this.tokensPerMinute === undefined) return;
    this.settled = true;
    const correction = used - this.estimatedTokens;
    if (correction !== 0) this.state.add(tokensKey(this.developer), correction, RATE_WINDOW_MS);
  }
}

const positive = (value: number | undefined): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined);

function refusal(message: string, verdict: WindowVerdict, headers: Record<string, string>): RouterError {
  const seconds = Math.ceil(verdict.retryAfterMs / 1000);
  return new RouterError(429, 'rate_limit', `${message} Retry in ${seconds} s.`, undefined, 'rate_limit_exceeded', verdict.retryAfterMs, { headers, retryable: false });
}

/**
 * OpenAI's rate-limit headers: limit, remaining, and reset as a duration (`1s`, `6m0s`).
 * https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers
 */
function limitHeaders(kind: 'requests' | 'tokens', limit: number, verdict: WindowVerdict): Record<string, string> {
  return {
    [`x-ratelimit-limit-${kind}`]: String(limit),
    [`x-ratelimit-remaining-${kind}`]: String(Math.max(0, limit - verdict.used)),
    [`x-ratelimit-reset-${kind}`]: formatDuration(verdict.allowed ? verdict.resetMs : verdict.retryAfterMs),
  };
}

/** A duration as OpenAI writes its reset headers: `1s`, `6m0s`, `1h2m3s` (whole seconds, rounded up). */
export function formatDuration(ms: number): string {
  let seconds = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  return `${hours ? `${hours}h` : ''}${hours || minutes ? `${minutes}m` : ''}${seconds}s`;
}
