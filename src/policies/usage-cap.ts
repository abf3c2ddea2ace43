import { RouterError } from '../core/errors.js';
import { formatCount } from '../core/format-numbers.js';
import type { Usage } from '../core/reply.js';
import type { SvcMeta } from '../formats/client-format.js';
import type { Identity } from '../identity/identity.js';
import type { Ledger, Reservation } from '../usage/ledger.js';
import type { Admission, Policy, PolicyInput } from './policy.js';

/**
 * The 30-day usage cap, as a ceiling: the request's input and max output are held before it is
 * forwarded, in one atomic step with every other request in flight (on every router sharing the
 * ledger), and settled to the real usage when it is recorded, or released if it fails first. It
 * runs last: of every refusal it is the dearest (a ledger write). See docs/teams.md.
 */
export const usageCap: Policy = {
  name: 'usage-cap',
  async admit(input) {
    const { identity, settings, estimatedTokens } = input;
    const reservation = await input.ledger.reserve({
      developer: identity.developer,
      requestId: input.requestId,
      capTokens: identity.capTokens,
      minimum: estimatedTokens,
      tokens: estimatedTokens + (input.request.maxOutputTokens ?? settings.limits.outputReserveTokens),
      ttlMs: settings.limits.reservationTtlMs,
    });
    if (!reservation.granted) throw capRefusal(reservation, estimatedTokens, identity.capTokens, identity.developer);
    input.windowUsed = reservation.used;
    return new CapAdmission(input.ledger, identity, input.requestId, reservation.used);
  },
};

/** A reservation held for the request: its usage record settles it; a failure gives it back. */
class CapAdmission implements Admission {
  constructor(
    private readonly ledger: Ledger,
    private readonly identity: Identity,
    private readonly requestId: string,
    /** Tokens used in the window when the reservation was granted. */
    private readonly used: number,
  ) {}

  /** Records the usage (which settles the reservation in the same step), and tells the client what is left; the reply waits for the record's write. */
  settle(usage: Usage, costNanoUsd: number | undefined, report: SvcMeta): void | Promise<void> {
    const written = this.ledger.record({
      ts: Date.now(),
      developer: this.identity.developer,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      requests: 1,
      requestId: this.requestId,
      model: report.sku,
      backend: report.backend || undefined,
      upstreamModel: report.upstream_model || undefined,
      ...(usage.cachedInputTokens ? { cacheReadTokens: usage.cachedInputTokens } : {}),
      ...(usage.cacheWriteInputTokens ? { cacheWriteTokens: usage.cacheWriteInputTokens } : {}),
      ...(costNanoUsd !== undefined ? { costNanoUsd } : {}),
    });
    report.remaining_tokens = Math.max(0, this.identity.capTokens - this.used - usage.inputTokens - usage.outputTokens);
    return written;
  }

  /** Nothing was recorded, so nothing settles the reservation: give it back. */
  release(): void {
    void this.ledger.release(this.identity.developer, this.requestId);
  }
}

/** What every cap refusal says, in whichever client format renders it. */
const raiseCap = (developer: string): string =>
  `To raise the cap, run \`svc-router keys cap ${developer} TOKENS\` where the router runs (it applies at once), or wait for older usage to leave the window.`;

/** Why a reservation was refused: the cap is reached (by usage, or with what requests in flight hold), or the request is too large for what is left. */
function capRefusal(reservation: Reservation, needed: number, cap: number, developer: string): RouterError {
  const { used, reserved } = reservation;
  const held = reserved > 0 ? ` and ${formatCount(reserved)} held by requests in flight` : '';
  if (used + reserved >= cap) {
    return new RouterError(
      429,
      'rate_limit',
      `Usage cap reached: ${formatCount(used)}${held ? ` used${held},` : ''} of ${formatCount(cap)} tokens used in the last 30 days. ${raiseCap(developer)}`,
      undefined,
      'usage_cap_exceeded',
    );
  }
  return new RouterError(
    429,
    'rate_limit',
    `Request too large for the usage cap: it needs about ${formatCount(needed)} input tokens, but only ${formatCount(cap - used - reserved)} of ${formatCount(cap)} tokens remain in the last 30 days${held ? ` (${formatCount(used)} used${held})` : ''}. Shorten the request, or: ${raiseCap(developer)}`,
    undefined,
    'usage_cap_exceeded',
  );
}
