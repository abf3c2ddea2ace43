import fs from 'node:fs';
import path from 'node:path';
import type { Settings } from '../../config/settings.js';
import { unknownStoredFields, type UnknownField } from '../../config/stored-settings.js';
import { LEADING_WHITESPACE, TRAILING_WHITESPACE, whitespaceIn } from '../../identity/key-whitespace.js';
import { providerKeyOf } from '../../identity/provider-keys.js';
import { formatCount } from '../../core/format-numbers.js';
import { OFFLINE_BACKEND, parseTarget } from '../../core/target.js';
import { hostForUrl } from '../router-origin.js';
import type { ServerState } from '../server-state.js';
import { schemeOf, untrustedCertRemedy } from '../tls-files.js';
import type { BackendFinding } from './backend-checks.js';
import { endpointOf, httpGet, probeTcp, tryListen, type TcpProbe } from './network.js';
import { fail, pass, REMEDY, skip, warn, type CheckResult } from './result.js';


/** The first characters of a key: enough to tell keys apart, never enough to use one. */
export const keyHint = (key: string): string => `${key.slice(0, Math.min(12, Math.floor(key.length / 3)))}…`;

export function checkKey(key: string | undefined): CheckResult {
  if (key === undefined || key === '') {
    return fail('key', 'no key: none given with --key or SVC_ROUTER_KEY, and none stored', 'Run svc-router init (it stores your key), or pass --key.');
  }
  const whitespace = whitespaceIn(key);
  if (whitespace === 'escaped') return fail('key', `the key (${keyHint(key)}) holds whitespace written out as an escape (\\n, %20 or the like); the router refuses it with 401`, REMEDY.key);
  if (whitespace === 'raw') {
    const where = LEADING_WHITESPACE.test(key) ? 'leading' : TRAILING_WHITESPACE.test(key) ? 'trailing' : 'inner';
    return fail('key', `the key (${keyHint(key.trim())}) has ${where} whitespace; the router refuses it with 401`, REMEDY.key);
  }
  const provider = providerKeyOf(key);
  if (provider) return fail('key', `the key (${provider.shown}) is a provider's key (${provider.provider}), not one this router issued; the router refuses it with 401`, REMEDY.providerKey);
  return pass('key', `present (${keyHint(key)}), no whitespace`);
}


function reachableResult(host: string, port: number, probe: TcpProbe): CheckResult {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (probe.ok) return pass('reachable', `${where} accepts connections (${probe.ms} ms)`);
  const remedy =
    probe.failure === 'refused'
      ? `Nothing listens on ${where}: start the router there (svc-router serve), or fix the host and port in the base URL.`
      : probe.failure === 'not-found'
        ? `Check the host name in the base URL; ${host} does not resolve.`
        : REMEDY.network;
  return fail('reachable', `${where}: ${probe.detail}`, remedy);
}

export async function checkReachable(url: URL, timeoutMs: number): Promise<CheckResult> {
  const { host, port } = endpointOf(url);
  return reachableResult(host, port, await probeTcp(host, port, timeoutMs));
}

interface WhoamiBody {
  developer?: string;
  organisation?: string;
  tier?: string;
  usage?: { tokens_used?: number; cap_tokens?: number; remaining_tokens?: number };
}

/** GET /whoami with the key: the router answers 200 and names the key's developer. */
export async function checkWhoami(root: string, key: string, timeoutMs: number): Promise<{ result: CheckResult; body?: WhoamiBody }> {
  const url = `${root}/whoami`;
  const answer = await httpGet(url, { authorization: `Bearer ${key}`, accept: 'application/json' }, timeoutMs);
  if (!answer.ok) {
    const remedy =
      answer.failure === 'timeout'
        ? 'Something accepts connections there but does not answer HTTP: check that the address is svc-router (svc-router serve), not another program or a proxy that holds connections.'
        : (untrustedCertRemedy(answer.detail) ?? (/wrong.version.number/i.test(answer.detail) ? 'That address answers plain HTTP, not TLS: use http:// in the base URL.' : REMEDY.network));
    return { result: fail('whoami', `GET ${url}: ${answer.detail}`, remedy) };
  }
  const message = errorMessage(answer.json) ?? answer.text.trim().slice(0, 120);
  if (answer.status === 401) return { result: fail('whoami', `GET ${url}: 401 Unauthorized${message ? `: ${message}` : ''}`, whitespaceIn(key) ? REMEDY.key : providerKeyOf(key) ? REMEDY.providerKey : REMEDY.unknownKey) };
  if (answer.status === 404) {
    return {
      result: fail('whoami', `GET ${url}: 404 Not Found`, 'The base URL does not point at svc-router itself: use http://HOST:PORT/v1 (the router answers /whoami beside /v1).'),
    };
  }
  if (answer.status !== 200) return { result: fail('whoami', `GET ${url}: HTTP ${answer.status}${message ? `: ${message}` : ''}`, 'See the router\'s message above.') };
  const body = answer.json as WhoamiBody | undefined;
  if (!body || typeof body.developer !== 'string') {
    return { result: fail('whoami', `GET ${url}: 200, but not an identity record`, 'The base URL points at something other than svc-router; use the address svc-router serve prints.') };
  }
  return { result: pass('whoami', `200 OK: ${body.developer} · ${body.organisation ?? '?'} · tier ${body.tier ?? '?'}`), body };
}

/** From /whoami's usage: a caller at the cap gets 429 on every model request. */
export function checkUsageCap(body: WhoamiBody): CheckResult {
  const usage = body.usage;
  if (!usage || typeof usage.cap_tokens !== 'number' || typeof usage.tokens_used !== 'number') return skip('usage-cap', '/whoami reported no usage');
  const remaining = usage.remaining_tokens ?? Math.max(0, usage.cap_tokens - usage.tokens_used);
  if (remaining <= 0) {
    return fail(
      'usage-cap',
      `usage cap reached: ${formatCount(usage.tokens_used)} of ${formatCount(usage.cap_tokens)} tokens used in 30 days; model requests get 429`,
      `Raise the cap where the router runs: svc-router keys cap ${body.developer ?? 'SLUG'} TOKENS (the key stays the same), or wait for older usage to leave the 30-day window.`,
    );
  }
  return pass('usage-cap', `${formatCount(usage.tokens_used)} of ${formatCount(usage.cap_tokens)} tokens used in 30 days; ${formatCount(remaining)} left`);
}

/** What the backend checks (and `--live`) found, for the routes to read. */
export interface RouteEvidence {
  findings: ReadonlyMap<string, BackendFinding>;
  /** `BACKEND:MODEL` → whether its one-token request was answered (with --live). */
  answered?: ReadonlyMap<string, boolean>;
}

/**
 * Every route target names a backend that exists (or the built-in offline one), and, given what
 * the backend checks found, each chain (the route's, and each task rule's) has a target that can
 * answer: a route none of whose targets can is a failure, one that falls back past some a warning.
 */
export function checkRoutes(settings: Settings, evidence?: RouteEvidence): CheckResult[] {
  const routes = Object.entries(settings.routes);
  if (routes.length === 0) return [skip('routes', `none configured; the built-in ${OFFLINE_BACKEND} backend serves every SKU`)];
  return routes.map(([model, targets]) => {
    const id = `route:${model}`;
    if (!Array.isArray(targets) || targets.length === 0) {
      return fail(id, 'has no targets', `Set some: svc-router routes set ${model} BACKEND[:MODEL] …, or remove it: svc-router routes unset ${model}`);
    }
    const missing = targets.filter((text) => {
      const { backend } = parseTarget(String(text));
      return backend !== OFFLINE_BACKEND && !(backend in settings.backends);
    });
    if (missing.length === 0) return evidence ? servable(id, model, settings, evidence) : pass(id, `→ ${targets.join(' → ')}`);
    const names = missing.map((text) => `'${parseTarget(String(text)).backend}'`).join(', ');
    return fail(
      id,
      `target${missing.length > 1 ? 's' : ''} ${missing.join(', ')} name${missing.length > 1 ? '' : 's'} backend${missing.length > 1 ? 's' : ''} ${names}, which ${missing.length > 1 ? 'are' : 'is'} not configured`,
      `Add the backend (svc-router backends add NAME --type … --base-url …) or change the route (svc-router routes set ${model} TARGET …).`,
    );
  });
}

/** Whether each chain of a route has a target that can answer, from what the checks found. */
function servable(id: string, model: string, settings: Settings, evidence: RouteEvidence): CheckResult {
  const targets = settings.routes[model]!;
  const policy = Object.hasOwn(settings.routePolicies, model) ? settings.routePolicies[model] : undefined;
  const chains = [{ name: '', targets }, ...(policy?.rules ?? []).map((rule) => ({ name: `rule ${rule.name}: `, targets: rule.targets }))];
  const dead: string[] = [];
  const doubts: string[] = [];
  for (const chain of chains) {
    const states = chain.targets.map((text) => targetState(String(text), model, settings, evidence));
    const down = states.filter((state) => state.down);
    if (down.length === states.length) dead.push(`${chain.name}no target can answer: ${down.map((state) => state.down).join('; ')}`);
    else if (down.length) doubts.push(`${chain.name}falls back past ${down.map((state) => state.down).join('; ')}`);
    doubts.push(...states.flatMap((state) => (state.doubt ? [`${chain.name}${state.doubt}`] : [])));
  }
  const chain = `→ ${targets.join(' → ')}`;
  if (dead.length) return fail(id, `${chain}: ${[...dead, ...doubts].join('; ')}`, `Fix the backends named above (their own lines say how), or add a target that answers: svc-router routes set ${model} TARGET … offline`);
  if (doubts.length) return warn(id, `${chain}: ${doubts.join('; ')}`, `svc-router doctor --live proves each target with a one-token request; svc-router routes set ${model} … changes the chain.`);
  return pass(id, chain);
}

/** Why a target cannot answer (`down`), or why it may not (`doubt`). */
function targetState(text: string, route: string, settings: Settings, evidence: RouteEvidence): { down?: string; doubt?: string } {
  const { backend, upstreamModel } = parseTarget(text);
  if (backend === OFFLINE_BACKEND) return {};
  const model = upstreamModel ?? (route.includes('*') ? undefined : route);
  const live = model === undefined ? undefined : evidence.answered?.get(`${backend}:${model}`);
  if (live !== undefined) return live ? {} : { down: `${text} (its one-token request failed)` };
  const finding = evidence.findings.get(backend);
  if (!finding) return {};
  if (!finding.usable) return { down: `${text} (see backend:${backend})` };
  if (model !== undefined && finding.models?.complete) {
    const listed = finding.probe?.listedAs?.(model) ?? model;
    if (!finding.models.ids.has(listed)) return { doubt: `${backend}'s model list has no '${model}'` };
  }
  return {};
}

/** The config file holds keys: only its owner may read it. */
export function checkConfigFile(file: string, problem: string | undefined, serve?: ServerState): CheckResult {
  if (problem !== undefined) {
    // The declarative file in force, or config.json: a running serve keeps its last valid version meanwhile.
    const declarative = path.basename(file) !== 'config.json';
    const kept = serve ? `; the running serve (pid ${serve.pid}) routes with the last version it read until it is fixed` : '';
    return fail('config-file', `${file}: ${problem}${kept}`, declarative ? `Fix it: svc-router config validate ${file} names each problem.` : 'Fix the JSON by hand (the position above says where), or move the file away and run svc-router init again.');
  }
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    return skip('config-file', `${file} does not exist yet (svc-router init creates it)`);
  }
  const octal = mode.toString(8).padStart(4, '0');
  const problems: Array<{ message: string; remedy: string }> = [];
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) problems.push({ message: `${file} is mode ${octal}: others can read the keys in it`, remedy: `chmod 600 ${file}` });
  const unknown = unknownFieldsOf(file);
  if (unknown.length) {
    // `FILE line 7, column 15: guardrails: unknown field …`: the file is named once, before the lines.
    const fields = unknown.map((field) => field.at.slice(file.length + 1)).join('; ');
    problems.push({
      message: `${file}: ${fields}; the router ignores ${unknown.length === 1 ? 'it' : 'them'}, so ${unknown.length === 1 ? 'that setting stays' : 'those settings stay'} at the default`,
      remedy: 'Fix the field names in the file by hand, or remove them (svc-router config set KEY VALUE writes a setting under its right name).',
    });
  }
  if (problems.length) return fail('config-file', problems.map((problem) => problem.message).join('; and '), problems.map((problem) => problem.remedy).join(' '));
  if (process.platform === 'win32') return skip('config-file', `${file}: every field known; permissions are not checked on Windows`);
  return pass('config-file', `${file} is mode ${octal}, every field known`);
}

/** config.json's fields the settings do not know (a declarative file in force refuses its own). */
function unknownFieldsOf(file: string): UnknownField[] {
  try {
    return unknownStoredFields(file, fs.readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
}

/** `serve` can listen on the configured port, or an svc-router already does. */
export async function checkServePort(settings: Settings, timeoutMs: number): Promise<CheckResult> {
  const { host, port } = settings.server;
  const where = `${hostForUrl(host)}:${port}`;
  if (port === 0) return pass('serve-port', 'server.port is 0: serve picks a free port');
  const probe = await tryListen(host, port);
  if (probe.free) return pass('serve-port', `${where} is free for svc-router serve`);
  if (probe.code === 'EADDRINUSE') {
    const answer = await httpGet(`${schemeOf(settings.server)}://${where}/`, {}, timeoutMs);
    if (answer.ok && (answer.json as { name?: unknown } | undefined)?.name === 'svc-router') return pass('serve-port', `${where}: svc-router is serving there`);
    const untrusted = answer.ok ? undefined : untrustedCertRemedy(answer.detail);
    if (untrusted) return fail('serve-port', `${where} serves HTTPS with a certificate this machine does not trust (${answer.ok ? '' : answer.detail})`, untrusted);
    return fail('serve-port', `${where} is in use by another program`, `Stop that program, or pick another port: svc-router config set server.port PORT (or serve --port PORT).`);
  }
  if (probe.code === 'EACCES') return fail('serve-port', `${where}: not allowed to listen (${probe.code})`, 'Use a port above 1023: svc-router config set server.port PORT.');
  return fail('serve-port', `${where}: cannot listen (${probe.code}: ${probe.detail})`, 'Check server.host (svc-router config get server.host) names an address of this machine.');
}

function errorMessage(json: unknown): string | undefined {
  const error = (json as { error?: { message?: unknown } } | undefined)?.error;
  return typeof error?.message === 'string' ? error.message : undefined;
}
