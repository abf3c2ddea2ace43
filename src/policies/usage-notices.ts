import { formatCount } from '../core/format-numbers.js';
import type { Usage } from '../core/reply.js';
import { warn } from '../core/warnings.js';
import type { Admission, Policy, PolicyInput } from './policy.js';

/** The shares of a key's 30-day cap, in percent, whose crossing is announced. */
export const NOTICE_THRESHOLDS: readonly number[] = [50, 80, 100];

/** The reply header that carries the notice, for clients that never read svc_meta. */
export const USAGE_WARNING_HEADER = 'x-svc-usage-warning';

/**
 * Budget notices: a key past 50, 80 or 100 % of its 30-day cap is told so on every reply, as it
 * stood when the request arrived (`x-svc-usage-warning`, `svc_meta.warnings` and so `x-svc-warning`),
 * the request that crosses a threshold says so in `svc_meta.warnings` (where svc_meta is written
 * after the usage is known: not on a forwarded Messages stream, whose svc_meta goes out with
 * `message_delta`), the request log and dashboard say so (the note), and the
 * crossing of each threshold is sent once per key per 30 days to `notify.webhook`
 * (src/usage/usage-webhook.ts), off the request's path. It runs after the usage cap and takes the
 * key's usage from its reservation (read alone, as /whoami does, only without the cap), so it
 * costs no read of its own, and a request the cap refuses costs it nothing.
 */
export const usageNotices: Policy = {
  name: 'usage-notices',
  admit(input) {
    if (!(input.identity.capTokens > 0)) return undefined;
    // The usage cap, which runs before, read the window: no second read, and no promise.
    if (input.windowUsed !== undefined) return new NoticeAdmission(input, input.windowUsed);
    return input.ledger.summary(input.identity.developer).then((summary) => new NoticeAdmission(input, summary.totalTokens));
  },
};

class NoticeAdmission implements Admission {
  readonly headers?: Record<string, string>;
  readonly note?: string;
  /** The highest threshold the key had passed when the request arrived. */
  private readonly passed: number | undefined;

  constructor(
    private readonly input: PolicyInput,
    private readonly used: number,
  ) {
    const cap = input.identity.capTokens;
    this.passed = thresholdReached(used, cap);
    if (this.passed !== undefined) {
      const notice = standing(used, cap, this.passed, input.identity.developer);
      this.headers = { [USAGE_WARNING_HEADER]: notice };
      // Said now, it reaches every svc_meta, a forwarded Messages stream's too (written before its usage is final).
      warn(input.request, notice);
      this.note = `past ${this.passed}% of the 30-day cap`;
    }
  }

  /** With the request's usage counted: the warning in svc_meta, and each threshold reached to the webhook (once each: it remembers). */
  settle(usage: Usage): void {
    const { identity, settings, request, notices } = this.input;
    const cap = identity.capTokens;
    const used = this.used + usage.inputTokens + usage.outputTokens;
    const reached = thresholdReached(used, cap);
    if (reached === undefined) return;
    if (reached !== this.passed) warn(request, sentence(`This request took this key past ${reached}% of its 30-day usage cap (${of(used, cap)}).`, reached, identity.developer));
    for (const threshold of NOTICE_THRESHOLDS) {
      if (threshold > reached) break;
      notices.send(settings, { developer: identity.developer, organisation: identity.organisation, thresholdPercent: threshold, usedTokens: used, capTokens: cap });
    }
  }
}

/** The highest threshold `used` has reached, if any. */
export function thresholdReached(used: number, cap: number): number | undefined {
  let reached: number | undefined;
  // Compared in whole tokens times 100: no rounding decides a crossing.
  for (const threshold of NOTICE_THRESHOLDS) if (used * 100 >= threshold * cap) reached = threshold;
  return reached;
}

const of = (used: number, cap: number): string => `${Math.floor((used * 100) / cap)}%: ${formatCount(used)} of ${formatCount(cap)} tokens`;

/** The key's standing, in printable ASCII (it is a header's value too). */
const standing = (used: number, cap: number, passed: number, developer: string): string =>
  sentence(`This key is past ${passed}% of its 30-day usage cap (${of(used, cap)}).`, passed, developer);

/** At the cap, what follows and what to do. */
const sentence = (said: string, passed: number, developer: string): string =>
  passed < 100 ? said : `${said} Its requests are refused until older usage leaves the window, or the cap is raised (svc-router keys cap ${developer} TOKENS).`;
