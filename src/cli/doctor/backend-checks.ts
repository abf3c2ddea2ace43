import type { BackendModule, BackendProbe } from '../../backends/backend.js';
import { LOADERS } from '../../backends/registry.js';
import { isBackendType } from '../../core/backend-types.js';
import type { BackendSettings, Settings } from '../../config/settings.js';
import { redactText } from '../../core/redact.js';
import { serveHas } from '../key-variables.js';
import type { ServerState } from '../server-state.js';
import { checkCloudCredentials } from './cloud-credentials.js';
import { endpointOf, httpGet, probeTcp, type Failure } from './network.js';
import { fail, pass, REMEDY, warn, type CheckResult } from './result.js';

/** What the check of a backend found, for the routes that send requests to it. */
export interface BackendFinding {
  /** Whether requests routed to it can be answered: false when its check failed. */
  usable: boolean;
  /** The models its list names, when it answered one. */
  models?: { ids: ReadonlySet<string>; complete: boolean };
  probe?: BackendProbe;
  module?: BackendModule;
  /** A key it accepted (or the only one it has), for the live request; `null` when none can be sent from here. */
  key?: string | null;
}

export interface BackendReport {
  results: CheckResult[];
  findings: Map<string, BackendFinding>;
}

export interface BackendCheckOptions {
  timeoutMs: number;
  /** The running serve: which key variables it had when it started (names only). */
  serve?: ServerState;
  env?: NodeJS.ProcessEnv;
}

/**
 * Proves each configured backend as a request would meet it: its key (each key of a pool) on the
 * call the backend's own probe names, its model list, which every provider answers for free. A
 * type without a probe is checked by a connection only.
 */
export async function checkBackends(settings: Settings, options: BackendCheckOptions): Promise<BackendReport> {
  const entries = Object.entries(settings.backends);
  const checked = await Promise.all(entries.map(([name, backend]) => checkBackend(name, backend, options)));
  return { results: checked.map((entry) => entry.result), findings: new Map(entries.map(([name], index) => [name, checked[index]!.finding])) };
}

/** One key a backend may send: stored, read from a variable, or none at all. */
interface KeySource {
  label: string;
  variable?: string;
  value?: string;
}

type KeyOutcome =
  | { kind: 'accepted'; source: KeySource; models?: { ids: string[]; complete: boolean }; ms: number }
  | { kind: 'limited'; source: KeySource; status: number; message: string }
  | { kind: 'no-list'; source: KeySource; status: number }
  | { kind: 'unknown'; source: KeySource }
  /** `serveLacks`: the running serve does not have the variable (`unrecorded`: its state file does not say, so it may not). */
  | { kind: 'missing'; source: KeySource; serveLacks: boolean | 'unrecorded' }
  | { kind: 'refused'; source: KeySource; status: number; message: string }
  | { kind: 'error'; source: KeySource; status: number; message: string }
  | { kind: 'network'; source: KeySource; failure: Failure; detail: string };

const GOOD = new Set<KeyOutcome['kind']>(['accepted', 'limited', 'no-list', 'unknown']);

async function checkBackend(name: string, backend: BackendSettings, options: BackendCheckOptions): Promise<{ result: CheckResult; finding: BackendFinding }> {
  const id = `backend:${name}`;
  const broken = (result: CheckResult) => ({ result, finding: { usable: result.status !== 'fail' } });
  let url: URL;
  try {
    url = new URL(backend.baseUrl);
  } catch {
    return broken(fail(id, `base URL '${backend.baseUrl}' is not a URL`, `Re-add it: svc-router backends add ${name} --type ${backend.type} --base-url URL`));
  }
  const { host, port } = endpointOf(url);
  const where = `${backend.type} at ${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (!isBackendType(backend.type)) return broken(fail(id, `unknown type '${String(backend.type)}'`, `Re-add it with a known --type: svc-router backends add ${name} --type TYPE --base-url URL`));
  const module = await LOADERS[backend.type]();
  const cloud = await checkCloudCredentials(id, name, backend, options);
  if (cloud.result) return broken(cloud.result);
  if (!module.probe) return broken(await connectionOnly(id, name, backend, host, port, where, options.timeoutMs, cloud.source));

  const probe = module.probe;
  const sources = keySources(backend, options.env ?? process.env);
  const secrets = sources.flatMap((source) => (source.value ? [source.value] : []));
  const outcomes = await Promise.all(sources.map((source) => probeKey(backend, probe, source, options, secrets)));
  const result = judge(id, name, backend, where, outcomes, options.serve);
  const accepted = outcomes.find((outcome) => outcome.kind === 'accepted' || outcome.kind === 'limited' || outcome.kind === 'no-list');
  const listed = outcomes.find((outcome): outcome is Extract<KeyOutcome, { kind: 'accepted' }> => outcome.kind === 'accepted' && outcome.models !== undefined);
  return {
    result,
    finding: {
      usable: result.status !== 'fail',
      probe,
      module,
      key: accepted ? (accepted.source.value ?? undefined) : null,
      ...(listed?.models ? { models: { ids: new Set(listed.models.ids), complete: listed.models.complete } } : {}),
    },
  };
}

/** The keys a call may carry: a pool's (which replaces the backend's own), else its own, else none. */
function keySources(backend: BackendSettings, env: NodeJS.ProcessEnv): KeySource[] {
  const fromVariable = (variable: string): KeySource => ({ label: `$${variable}`, variable, ...(env[variable] ? { value: env[variable] } : {}) });
  if (backend.keyPool?.keys.length) {
    return backend.keyPool.keys.map((key, index) => ('apiKey' in key ? { label: `pooled key ${index + 1} (stored)`, value: key.apiKey } : fromVariable(key.apiKeyEnv)));
  }
  if (backend.apiKey !== undefined) return [{ label: 'the stored key', value: backend.apiKey }];
  if (backend.apiKeyEnv !== undefined) return [fromVariable(backend.apiKeyEnv)];
  return [{ label: 'no key' }];
}

/**
 * One key on the model-list call. With a serve running, a variable is judged by the serve's
 * environment, which is fixed when it starts: one it lacks fails though this shell sets it (a
 * backend added since), and one only it has is not checked. A variable unset is not sent.
 */
async function probeKey(backend: BackendSettings, probe: BackendProbe, source: KeySource, options: BackendCheckOptions, secrets: string[]): Promise<KeyOutcome> {
  if (source.variable !== undefined) {
    const served = options.serve ? serveHas(options.serve, source.variable) : undefined;
    if (options.serve && served !== true) return { kind: 'missing', source, serveLacks: served === false ? true : 'unrecorded' };
    if (source.value === undefined) return options.serve ? { kind: 'unknown', source } : { kind: 'missing', source, serveLacks: false };
  }
  const request = probe.modelList(backend.baseUrl.replace(/\/+$/, ''), source.value, backend);
  // Configured headers first, as on every call: they add to the probe's auth but never replace it.
  const started = performance.now();
  const answer = await httpGet(request.url, { accept: 'application/json', ...backend.headers, ...request.headers }, options.timeoutMs);
  if (!answer.ok) return { kind: 'network', source, failure: answer.failure, detail: answer.detail };
  const ms = Math.round(performance.now() - started);
  const message = redactText(errorText(answer.json, answer.text), secrets, 200);
  const { status } = answer;
  if (status >= 200 && status < 300) {
    const models = probe.readModels(answer.json);
    return { kind: 'accepted', source, ms, ...(models ? { models } : {}) };
  }
  if (status === 401 || status === 403 || probe.refusesKey?.(status, answer.json)) return { kind: 'refused', source, status, message };
  if (status === 404 || status === 405) return { kind: 'no-list', source, status };
  if (status === 429) return { kind: 'limited', source, status, message };
  return { kind: 'error', source, status, message };
}

/** One line for the backend, from what each of its keys met. */
function judge(id: string, name: string, backend: BackendSettings, where: string, outcomes: KeyOutcome[], serve: ServerState | undefined): CheckResult {
  const network = outcomes.find((outcome): outcome is Extract<KeyOutcome, { kind: 'network' }> => outcome.kind === 'network');
  if (network) return unreachable(id, name, backend, where, network);
  const pooled = outcomes.length > 1 || backend.keyPool !== undefined;
  if (!pooled) return single(id, name, backend, where, outcomes[0]!, serve);
  const bad = outcomes.filter((outcome) => !GOOD.has(outcome.kind));
  const said = bad.map((outcome) => `${outcome.source.label} ${shortly(outcome, serve)}`).join('; ');
  if (bad.length === outcomes.length) {
    return fail(id, `${where}: none of its ${outcomes.length} pooled keys can be used: ${said}`, `Fix the pool's keys (svc-router backends pool ${name} --key-env VAR …), where svc-router serve runs.`);
  }
  if (bad.length) {
    return warn(id, `${where}: ${bad.length} of its ${outcomes.length} pooled keys cannot be used (${said}); requests go to the others`, `Fix or drop those keys: svc-router backends pool ${name} …`);
  }
  const unchecked = outcomes.filter((outcome) => outcome.kind !== 'accepted');
  if (unchecked.length) return warn(id, `${where}: ${outcomes.length - unchecked.length} of ${outcomes.length} pooled keys accepted; ${unchecked.map((outcome) => `${outcome.source.label} ${shortly(outcome, serve)}`).join('; ')}`, remedyFor(unchecked[0]!, name, backend, serve));
  return pass(id, `${where}: all ${outcomes.length} pooled keys accepted (model list)`);
}

/** A backend with one key (or none). */
function single(id: string, name: string, backend: BackendSettings, where: string, outcome: KeyOutcome, serve: ServerState | undefined): CheckResult {
  const remedy = remedyFor(outcome, name, backend, serve);
  const key = outcome.source.label;
  switch (outcome.kind) {
    case 'accepted': {
      const count = outcome.models ? `, ${outcome.models.ids.length}${outcome.models.complete ? '' : '+'} model${outcome.models.ids.length === 1 && outcome.models.complete ? '' : 's'}` : '';
      return pass(id, `${where}: ${key === 'no key' ? 'answers without a key' : `${key} accepted`} (model list${count}, ${outcome.ms} ms)`);
    }
    case 'missing':
      return fail(id, `${where}: takes its key from ${key}, which ${lacking(outcome, serve)}: every request routed to it fails with 502`, remedy);
    case 'unknown':
      return warn(id, `${where}: ${key} is not set in this shell, so its key was not checked (the running serve, pid ${serve?.pid}, has it)`, remedy);
    case 'refused':
      return fail(id, `${where}: ${key === 'no key' ? 'wants a key, and none is configured' : `${key} refused`}: HTTP ${outcome.status}${outcome.message ? `: ${outcome.message}` : ''}`, remedy);
    case 'limited':
      return warn(id, `${where}: ${key} accepted, but rate-limited now (HTTP ${outcome.status}${outcome.message ? `: ${outcome.message}` : ''})`, remedy);
    case 'no-list':
      return warn(id, `${where}: answers, but has no model list (HTTP ${outcome.status}), so ${key === 'no key' ? 'that it needs no key' : `${key}`} is not proven`, remedy);
    case 'error':
      return fail(id, `${where}: the model list failed with HTTP ${outcome.status}${outcome.message ? `: ${outcome.message}` : ''}`, remedy);
    case 'network':
      return unreachable(id, name, backend, where, outcome);
  }
}

/** A pooled key's outcome, in a few words. */
function shortly(outcome: KeyOutcome, serve: ServerState | undefined): string {
  switch (outcome.kind) {
    case 'missing':
      return lacking(outcome, serve);
    case 'unknown':
      return 'is not set in this shell (the running serve has it): not checked';
    case 'refused':
      return `refused (HTTP ${outcome.status})`;
    case 'error':
      return `failed (HTTP ${outcome.status})`;
    case 'limited':
      return `rate-limited (HTTP ${outcome.status})`;
    case 'no-list':
      return `not proven (no model list, HTTP ${outcome.status})`;
    default:
      return 'accepted';
  }
}

/** Where a key variable is missing: in the running serve (whatever this shell has), or here. */
function lacking(outcome: Extract<KeyOutcome, { kind: 'missing' }>, serve: ServerState | undefined): string {
  if (outcome.serveLacks === 'unrecorded') return `the running serve (pid ${serve?.pid}) may not have: it started before this variable was named, and its state file does not say`;
  return outcome.serveLacks ? `was not set when the running serve (pid ${serve?.pid}) started` : 'is not set here';
}

function remedyFor(outcome: KeyOutcome, name: string, backend: BackendSettings, serve: ServerState | undefined): string {
  const variable = outcome.source.variable;
  switch (outcome.kind) {
    case 'missing':
      return outcome.serveLacks
        ? `Set ${variable} in a shell and run svc-router restart from it: the serve reads its environment when it starts.`
        : `Set ${variable} (export ${variable}=…) in the shell that runs the serve${serve ? ', then svc-router restart from it' : ''}.`;
    case 'unknown':
      return `Run doctor where ${variable} is set to check the key itself.`;
    case 'refused':
      if (variable) return `Put a key the upstream accepts in ${variable} where svc-router serve runs${serve ? ', then svc-router restart from there' : ''}.`;
      if (outcome.source.value === undefined) return `Give it a key: svc-router backends add ${name} --type ${backend.type} --base-url ${backend.baseUrl} --api-key-env VAR.`;
      return `Store a key the upstream accepts: svc-router backends add ${name} --type ${backend.type} --base-url ${backend.baseUrl} --api-key-env VAR (or --api-key KEY).`;
    case 'limited':
      return "Requests are refused while the limit lasts: wait, raise the account's limits, or give the backend a key pool (svc-router backends pool ${name} --key KEY --key KEY).";
    case 'no-list':
      return 'svc-router doctor --live sends a one-token request to each routed model (it costs a few tokens).';
    case 'error':
      return `The upstream reports a failure of its own: try again later, or check the base URL (${backend.baseUrl}).`;
    default:
      return '';
  }
}

function unreachable(id: string, name: string, backend: BackendSettings, where: string, outcome: Extract<KeyOutcome, { kind: 'network' }>): CheckResult {
  const { host, port } = endpointOf(new URL(backend.baseUrl));
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const remedy =
    outcome.failure === 'refused'
      ? `Nothing listens on ${address}: start that server, or fix the backend's base URL (svc-router backends add ${name} --type ${backend.type} --base-url URL).`
      : outcome.failure === 'not-found'
        ? `Check the host in the backend's base URL (svc-router backends list); ${host} does not resolve.`
        : `${REMEDY.network} (backend ${name}: ${address})`;
  return fail(id, `${where}: ${outcome.detail}`, remedy);
}

/** A type whose module names no probe: a TCP connection is all that can be checked. */
async function connectionOnly(id: string, name: string, backend: BackendSettings, host: string, port: number, where: string, timeoutMs: number, credentials?: string): Promise<CheckResult> {
  const probe = await probeTcp(host, port, timeoutMs);
  if (probe.ok) return pass(id, `${where} accepts connections (${probe.ms} ms; ${credentials ? `credentials: ${credentials}, not proven: ` : ''}this type has no cheap call to prove its key)`);
  return unreachable(id, name, backend, where, { kind: 'network', source: { label: '' }, failure: probe.failure, detail: probe.detail });
}

/** The message of an error body in the OpenAI, Anthropic and Google shapes, else the start of the text. */
function errorText(json: unknown, text: string): string {
  const error = (json as { error?: unknown } | undefined)?.error;
  const message = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : typeof error === 'string' ? error : undefined;
  return typeof message === 'string' ? message : text.trim().slice(0, 200);
}
