import type { Settings } from '../../config/settings.js';
import { RouterError } from '../../core/errors.js';
import type { CanonicalRequest } from '../../core/request.js';
import { OFFLINE_BACKEND, parseTarget } from '../../core/target.js';
import type { BackendFinding } from './backend-checks.js';
import { fail, pass, skip, type CheckResult } from './result.js';

/** Each distinct target a route (or a task rule) sends to: its text, and the model that goes upstream. */
function routedTargets(settings: Settings): Array<{ text: string; backend: string; model: string | undefined }> {
  const seen = new Map<string, { text: string; backend: string; model: string | undefined }>();
  for (const [route, targets] of Object.entries(settings.routes)) {
    const policy = Object.hasOwn(settings.routePolicies, route) ? settings.routePolicies[route] : undefined;
    const chains = [targets, ...(policy?.rules ?? []).map((rule) => rule.targets)];
    for (const text of chains.flat()) {
      const { backend, upstreamModel } = parseTarget(String(text));
      if (backend === OFFLINE_BACKEND) continue;
      // Without a model of its own, a target sends the client's: the route's name, unless it is a pattern.
      const model = upstreamModel ?? (route.includes('*') ? undefined : route);
      const key = `${backend}:${model ?? '*'}`;
      if (!seen.has(key)) seen.set(key, { text: model ? `${backend}:${model}` : String(text), backend, model });
    }
  }
  return [...seen.values()];
}

/**
 * `doctor --live`: one completion of a single token per routed target, through the backend itself
 * (its encoder, its URL, its headers), so a model name the upstream does not know, or a key it
 * takes for listing but not for completions, shows here. It costs a few tokens per target.
 */
export async function checkLive(settings: Settings, findings: ReadonlyMap<string, BackendFinding>, timeoutMs: number): Promise<{ results: CheckResult[]; answered: Map<string, boolean> }> {
  const answered = new Map<string, boolean>();
  const results = await Promise.all(
    routedTargets(settings).map(async ({ text, backend, model }): Promise<CheckResult> => {
      const id = `live:${text}`;
      const finding = findings.get(backend);
      if (!finding || !Object.hasOwn(settings.backends, backend)) return skip(id, `backend '${backend}' is not configured`);
      if (model === undefined) return skip(id, 'the model comes from the client (a pattern route without a model of its own)');
      if (!finding.usable || !finding.module) return skip(id, `skipped: see backend:${backend}`);
      if (finding.key === null) return skip(id, `skipped: no key of backend '${backend}' can be sent from this shell`);
      const ok = await liveRequest(settings, backend, model, finding, timeoutMs);
      answered.set(text, ok.status === 'pass');
      return { ...ok, id };
    }),
  );
  return { results, answered };
}

async function liveRequest(settings: Settings, name: string, model: string, finding: BackendFinding, timeoutMs: number): Promise<CheckResult> {
  const configured = settings.backends[name]!;
  const backend = finding.module!.createBackend(name, { ...configured, timeouts: { ...configured.timeouts, connectMs: timeoutMs, firstByteMs: timeoutMs, totalMs: timeoutMs } });
  const request: CanonicalRequest = {
    model,
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Reply with OK.' }] }],
    tools: [],
    maxOutputTokens: finding.probe?.liveMaxOutputTokens ?? 1,
  };
  const started = performance.now();
  // The backend's own deadlines (set above to the doctor's) bound the call; nothing aborts it early.
  try {
    const reply = await backend.complete({ request, upstreamModel: model, signal: new AbortController().signal, ...(finding.key ? { apiKey: finding.key } : {}) });
    return pass('live', `${model} answered (${reply.usage.inputTokens} in, ${reply.usage.outputTokens} out, ${Math.round(performance.now() - started)} ms)`);
  } catch (error) {
    // The backend redacts its own errors: its key never reaches this message.
    const status = error instanceof RouterError ? `HTTP ${error.status}: ` : '';
    const remedy =
      error instanceof RouterError && error.status === 404
        ? `Check the model name: svc-router routes set ROUTE ${name}:MODEL … (the upstream's model list names the ones it serves).`
        : 'See the message: every request routed to this target meets the same.';
    return fail('live', `${model}: ${status}${(error as Error).message}`, remedy);
  }
}
