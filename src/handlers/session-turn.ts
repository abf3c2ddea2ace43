import type { BackendSettings } from '../config/settings.js';
import type { Usage } from '../core/reply.js';
import type { PoolKey } from '../sessions/cache-breaks.js';
import type { SessionTurn } from '../sessions/session-book.js';
import type { CompletionRun } from './completion-run.js';

/**
 * A finished request of a session, for the sessions view (src/sessions/): where it went, with
 * which pooled key (its place, never the key), what it used and cost. Undefined when the request
 * names no session or no target answered.
 */
export function sessionTurnOf<Options>(run: CompletionRun<Options>, usage: Usage, costNanoUsd: number | undefined): SessionTurn | undefined {
  const { context, attempted } = run;
  const session = context.session;
  if (!session || !attempted) return undefined;
  const { settings } = context;
  const backendName = attempted.backend.name;
  const configured = Object.hasOwn(settings.backends, backendName) ? settings.backends[backendName] : undefined;
  const agent = agentOf(context.request.headers['user-agent']);
  const key = attempted.pooledKey === undefined ? undefined : poolKey(configured, attempted.pooledKey);
  const now = Date.now();
  return {
    session: session.id,
    caller: context.identity.developer,
    format: run.format.name,
    ...(agent ? { agent } : {}),
    model: run.model,
    route: run.chain.route ?? run.model,
    target: `${backendName}:${attempted.upstreamModel}`,
    backendType: attempted.backend.offline ? 'offline' : configured?.type,
    ...(key ? { key } : {}),
    // performance.now() when the request arrived, as a wall-clock time.
    startedAt: now - (performance.now() - context.startedAt),
    endedAt: now,
    usage,
    ...(costNanoUsd !== undefined ? { costNanoUsd } : {}),
    request: run.request,
  };
}

/** The client's name and version: the first word of its User-Agent (`claude-cli/2.1.3`, `codex_cli_rs/0.50.0`). */
function agentOf(userAgent: string | undefined): string | undefined {
  const word = userAgent === undefined ? undefined : /^[\w.\/()+-]{1,64}/.exec(userAgent.trim())?.[0];
  return word || undefined;
}

/** A pooled key by its place: `key 2`, or `key 2 ($OPENAI_KEY_B)` when it is read from the environment. */
function poolKey(backend: BackendSettings | undefined, index: number): PoolKey {
  const pooled = backend?.keyPool?.keys[index];
  const variable = pooled && 'apiKeyEnv' in pooled && typeof pooled.apiKeyEnv === 'string' ? pooled.apiKeyEnv : undefined;
  return { index, label: `key ${index + 1}${variable ? ` ($${variable})` : ''}` };
}
