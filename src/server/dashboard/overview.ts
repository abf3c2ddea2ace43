import type { ServerSettings, Settings } from '../../config/settings.js';
import type { App } from '../../handlers/app.js';
import { SKUS } from '../../core/model-names.js';
import { displayRedisStore } from '../../core/redis-store.js';
import { OFFLINE_BACKEND, parseTarget } from '../../core/target.js';
import { PRICE_PACKAGE_SOURCE } from '../../catalog/index.js';
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

/** One kind of failure of a backend: the same status and message, however often it came. */
export interface ErrorGroup {
  status: number;
  error: string;
  count: number;
  first_time: string;
  last_time: string;
}

/** Everything the dashboard shows besides the live stream; never a key. */
export interface Overview {
  generated_at: string;
  usage: UsageReport | { error: string };
  routes: Array<{ model: string; default: boolean; targets: TargetHealth[] }>;
  /** Each backend's recent failures, grouped: the most recent kind first. */
  backends: Array<{ name: string; type: string; base_url: string; requests: number; failures: number; error_groups: ErrorGroup[]; error_groups_not_shown: number }>;
  config: unknown;
}

/** What serve runs with that the stored settings may not say: its flags (--ui, --metrics, --port 0 …) applied. */
export interface InForce {
  server?: Partial<ServerSettings>;
  usageStore?: string;
}

/** Kinds of failure shown per backend (the most recent ones); each says how often it came. */
const MAX_ERROR_GROUPS_SHOWN = 5;

export async function buildOverview(app: App, settings: Settings, recent: StoredRequest[], inForce: InForce = {}): Promise<Overview> {
  let usage: Overview['usage'];
  try {
    usage = sliceUsage(await app.ledger.breakdown());
  } catch (error) {
    usage = { error: (error as Error).message };
  }
  const health = new Map<string, { ok: number; failed: number; latency: number; last?: NonNullable<StoredRequest['targets']>[number] }>();
  const byBackend = new Map<string, Overview['backends'][number]>();
  // Keyed by backend, then by status and message: both come from requests, so the keys live in Maps, never on objects.
  const errorGroups = new Map<string, Map<string, ErrorGroup>>();
  const backendOf = (name: string) => {
    let entry = byBackend.get(name);
    if (!entry) {
      const configured = Object.hasOwn(settings.backends, name) ? settings.backends[name] : undefined;
      entry = { name, type: configured?.type ?? (name === OFFLINE_BACKEND ? 'offline' : 'unknown'), base_url: configured?.baseUrl ?? '', requests: 0, failures: 0, error_groups: [], error_groups_not_shown: 0 };
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
        let groups = errorGroups.get(attempt.backend);
        if (!groups) errorGroups.set(attempt.backend, (groups = new Map()));
        const error = attempt.error ?? '';
        const key = `${attempt.outcome} ${error}`;
        const group = groups.get(key);
        if (group) {
          group.count++;
          group.last_time = request.time;
        } else {
          groups.set(key, { status: attempt.outcome, error, count: 1, first_time: request.time, last_time: request.time });
        }
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
  for (const [name, groups] of errorGroups) {
    const backend = byBackend.get(name)!;
    backend.error_groups = [...groups.values()].sort((a, b) => b.last_time.localeCompare(a.last_time)).slice(0, MAX_ERROR_GROUPS_SHOWN);
    backend.error_groups_not_shown = groups.size - backend.error_groups.length;
  }
  const routes: Overview['routes'] = Object.entries(settings.routes).map(([model, targets]) => ({ model, default: false, targets: targets.map((target) => targetHealth(target, model)) }));
  for (const sku of SKUS) if (!Object.hasOwn(settings.routes, sku)) routes.push({ model: sku, default: true, targets: [targetHealth(OFFLINE_BACKEND, sku)] });
  return {
    generated_at: new Date().toISOString(),
    usage,
    routes,
    backends: [...byBackend.values()],
    config: {
      server: { ...settings.server, ...inForce.server },
      usage_store: displayRedisStore(inForce.usageStore ?? settings.usage.store),
      keys: Object.keys(settings.keys).length,
      prices_source: PRICE_PACKAGE_SOURCE,
      price_overrides: { ...settings.prices },
      defaults: settings.defaults,
    },
  };
}
