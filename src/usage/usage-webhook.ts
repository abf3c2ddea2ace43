import { createHash } from 'node:crypto';
import type { Settings } from '../config/settings.js';
import { reportOnStderr } from '../files/report-on-stderr.js';
import type { SharedState } from '../shared-state/shared-state.js';
import { DAY_MS, WINDOW_DAYS } from './ledger.js';

/** A key's crossing of a share of its 30-day cap, as the webhook is told it. */
export interface ThresholdNotice {
  developer: string;
  organisation: string;
  /** 50, 80 or 100. */
  thresholdPercent: number;
  usedTokens: number;
  capTokens: number;
}

/** The wait before each retry: about two minutes in all before a notice is given up (and said so on stderr). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 20_000, 90_000];
/** How long one delivery attempt may take. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** How long closing waits for notices still being delivered. */
const CLOSE_TIMEOUT_MS = 2_000;
/** A notice per threshold per key is sent at most once in this long: the cap's window. */
export const NOTICE_PERIOD_MS = WINDOW_DAYS * DAY_MS;
/** Notices this process remembers having decided (sent, or left to another router): past it the oldest is asked about again. */
const REMEMBERED = 10_000;

export interface UsageWebhookOptions {
  retryDelaysMs?: readonly number[];
  /** Hears of notices that could not be delivered (default: standard error). */
  report?: (message: string) => void;
}

/**
 * Sends threshold notices to `notify.webhook`: one JSON POST per threshold per key per 30 days,
 * across every router sharing the state (the first to claim the notice sends it: SharedState's
 * claimOnce, through Redis or files in the config home). Never on the request's path: `send`
 * returns at once, and the claim and every attempt happen after. A failed attempt (no answer, a
 * 5xx, 408 or 429) is retried with growing waits; a notice given up, or still unsent when the
 * router closes, is said on stderr, naming the webhook by its origin only (its path may hold a
 * token). The body holds the key's developer and organisation and token counts: never a key.
 */
export class UsageWebhook {
  /** Notice names this process has decided, and until when. */
  private readonly decided = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly retryDelaysMs: readonly number[];
  private readonly report: (message: string) => void;
  private closed = false;
  /** Wakes every retry waiting when the router closes, so closing never waits out a backoff. */
  private stopped: (() => void) | undefined;
  private readonly stopping = new Promise<void>((resolve) => (this.stopped = resolve));

  constructor(
    private readonly shared: SharedState,
    options: UsageWebhookOptions = {},
  ) {
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.report = options.report ?? reportOnStderr;
  }

  /** Queues the notice unless this process already decided it; never throws, never waits. */
  send(settings: Settings, notice: ThresholdNotice, now = Date.now()): void {
    const url = webhookUrl(settings);
    if (url === undefined || this.closed) return;
    // The cap is in the name: a key whose cap is raised is told of the new cap's thresholds.
    const name = `notice:${notice.developer}:${notice.capTokens}:${notice.thresholdPercent}`;
    const until = this.decided.get(name);
    if (until !== undefined && until > now) return;
    this.remember(name, now + NOTICE_PERIOD_MS);
    const delivery = this.deliver(url, name, notice, now).catch(() => undefined);
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }

  /** Resolves once nothing is being delivered (tests; close). */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
  }

  /** Waits a little for notices still being delivered, and names those it gives up on. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopped?.();
    if (!this.inFlight.size) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)))]);
    clearTimeout(timer);
  }

  private async deliver(url: string, name: string, notice: ThresholdNotice, now: number): Promise<void> {
    if (!(await this.shared.claimOnce(name, NOTICE_PERIOD_MS, now))) return;
    const id = createHash('sha256').update(`${name}:${now}`).digest('hex').slice(0, 24);
    const body = JSON.stringify(noticeBody(notice, id, now));
    let failure = '';
    for (let attempt = 0; attempt <= this.retryDelaysMs.length; attempt++) {
      if (attempt > 0) {
        if (this.closed) break;
        await this.wait(this.retryDelaysMs[attempt - 1]!);
        if (this.closed) break;
      }
      const outcome = await post(url, body, id);
      if (outcome === 'delivered') return;
      failure = outcome.reason;
      if (!outcome.retry) break;
    }
    this.report(
      `the usage notice for ${notice.developer} at ${notice.thresholdPercent}% of its cap was not delivered to ${shownWebhook(url)}${this.closed ? ' before the router closed' : ''} (${failure})`,
    );
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      // A retry waiting must not keep a finished process alive, and closing wakes it.
      timer.unref();
      void this.stopping.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private remember(name: string, until: number): void {
    this.decided.delete(name);
    this.decided.set(name, until);
    if (this.decided.size > REMEMBERED) this.decided.delete(this.decided.keys().next().value!);
  }
}

/** The notice's JSON: what crossed, by whom, and an id the receiver can drop a repeated delivery by. */
function noticeBody(notice: ThresholdNotice, id: string, now: number): Record<string, unknown> {
  return {
    type: 'usage.threshold',
    id,
    developer: notice.developer,
    organisation: notice.organisation,
    threshold_percent: notice.thresholdPercent,
    used_tokens: notice.usedTokens,
    cap_tokens: notice.capTokens,
    used_percent: Math.floor((notice.usedTokens / notice.capTokens) * 1000) / 10,
    window_days: WINDOW_DAYS,
    at: new Date(now).toISOString(),
  };
}

type Outcome = 'delivered' | { retry: boolean; reason: string };

async function post(url: string, body: string, id: string): Promise<Outcome> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'svc-router', 'idempotency-key': id },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    // Only the status matters; the body is let go of at once.
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return 'delivered';
    return { retry: response.status >= 500 || response.status === 408 || response.status === 429, reason: `HTTP ${response.status}` };
  } catch (error) {
    // The cause names the failure (ECONNREFUSED, a timeout); the message of some would repeat the URL.
    const cause = (error as { cause?: { code?: unknown } }).cause?.code;
    return { retry: true, reason: typeof cause === 'string' ? cause : (error as Error).name === 'TimeoutError' ? 'no answer in time' : 'no answer' };
  }
}

/** The webhook in force: the stored URL, else the one its variable holds. */
export function webhookUrl(settings: Settings): string | undefined {
  const notify = settings.notify;
  const url = notify?.webhook || (notify?.webhookEnv ? process.env[notify.webhookEnv] : undefined);
  return url && /^https?:\/\//i.test(url) ? url : undefined;
}

/** A webhook URL as it may be printed: its origin, and `/…` for a path or query that may hold a token. */
export function shownWebhook(url: string): string {
  try {
    const parsed = new URL(url);
    const rest = `${parsed.pathname}${parsed.search}`;
    return `${parsed.protocol}//${parsed.host}${rest === '/' || rest === '' ? '' : '/…'}`;
  } catch {
    return '(a URL that does not parse)';
  }
}
