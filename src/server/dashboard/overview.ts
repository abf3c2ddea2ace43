import type { Settings } from '../../config/settings.js';
import type { App } from '../../handlers/app.js';
import { OFFLINE_BACKEND, SKUS } from '../../routing/skus.js';
import { parseTarget } from '../../routing/target.js';
import { DEFAULT_PRICES_DATE } from '../../usage/default-prices.js';
import { sliceUsage, type UsageReport } from '../../usage/slice.js';
import type { StoredRequest } from '../request-records.js';

/** How one target has fared over the recent requests. */
interface TargetHealth {
  target: string;
  ok: number;
  failed: number;
  last_status?: number | 'ok';
  last_error?: string;
  avg_latency_ms?: number;
}

/** Everything the dashboard shows besides the live stream; never a key. */
export interface Overview {
  generated_at: string;
  usage: UsageReport | { error: string };
  routes: Array<{ model: string; default: boolean; targets: TargetHealth[] }>;
  backends: Array<{ name: string; type: string; base_url: string; requests: number; failures: number; recent_errors: Array<{ time: string; status: number; error: string }> }>;
  config: unknown;
}

const MAX_ERRORS_SHOWN = 5;

export async function buildOverview(app: App, settings: Settings, recent: StoredRequest[]): Promise<Overview> {
  let usage: Overview['usage'];
  try {
    usage = sliceUsage(await app.ledger.breakdown());
  } catch (error) {
    usage = { error: (error as Error).message };
  }
  const health = new Map<string, { ok: number; failed: number; latency: number; last?: NonNullable<StoredRequest['targets']>[number] }>();
  const byBackend = new Map<string, Overview['backends'][number]>();
  const backendOf = (name: string) => {
    let entry = byBackend.get(name);
    if (!entry) {
      const configured = Object.hasOwn(settings.backends, name) ? settings.backends[name] : undefined;
      entry = { name, type: configured?.type ?? (name === OFFLINE_BACKEND ? 'offline' : 'unknown'), base_url: configured?.baseUrl ?? '', requests: 0, failures: 0, recent_errors: [] };
      byBackend.set(name, entry);
    }
    return entry;
  };
  for (const name of Object.keys(settings.backends)) backendOf(name);
  for (const request of recent) {
    for (const attempt of request.targets ?? []) {
      const key = `${attempt.backend}:${attempt.upstream_model}`;
      const sums = health.get(key) ?? { ok: 0, failed: 0, latency: 0 };
      if (attempt.outcome === 'ok') sums.ok++;
      else sums.failed++;
      sums.latency += attempt.latency_ms;
      sums.last = attempt;
      health.set(key, sums);
      const backend = backendOf(attempt.backend);
      backend.requests++;
      if (attempt.outcome !== 'ok') {
        backend.failures++;
        backend.recent_errors.unshift({ time: request.time, status: attempt.outcome, error: attempt.error ?? '' });
        backend.recent_errors.length = Math.min(backend.recent_errors.length, MAX_ERRORS_SHOWN);
      }
    }
  }
  const targetHealth = (text: string, model: string): TargetHealth => {
    const target = parseTarget(text);
    const key = `${target.backend}:${target.upstreamModel ?? model}`;
    const sums = health.get(key);
    if (!sums) return { target: text, ok: 0, failed: 0 };
    return {
      target: text,
      ok: sums.ok,
      failed: sums.failed,
      ...(sums.last ? { last_status: sums.last.outcome, ...(sums.last.error ? { last_error: sums.last.error } : {}) } : {}),
      avg_latency_ms: Math.round(sums.latency / (sums.ok + sums.failed)),
    };
  };
  const routes: Overview['routes'] = Object.entries(settings.routes).map(([model, targets]) => ({ model, default: false, targets: targets.map((target) => targetHealth(target, model)) }));
  for (const sku of SKUS) if (!Object.hasOwn(settings.routes, sku)) routes.push({ model: sku, default: true, targets: [targetHealth(OFFLINE_BACKEND, sku)] });
  return {
    generated_at: new Date().toISOString(),
    usage,
    routes,
    backends: [...byBackend.values()],
    config: {
      server: settings.server,
      usage_store: settings.usage.store.replace(/\/\/[^@/]*@/, '//[redacted]@'),
      keys: Object.keys(settings.keys).length,
      prices_date: DEFAULT_PRICES_DATE,
      price_overrides: { ...settings.prices },
      defaults: settings.defaults,
    },
  };
}
