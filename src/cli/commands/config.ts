import fs from 'node:fs';
import path from 'node:path';
import { CREDENTIAL_HEADERS } from '../../config/declarative/placement.js';
import { SECRETS_MODES, type SecretsMode, type Settings } from '../../config/settings.js';
import { whenApplied } from '../../config/settings-shape.js';
import { SKUS } from '../../core/model-names.js';
import { HEADER_NAME } from '../../core/header-name.js';
import { parseHostName, parseOrigin } from '../../core/host-names.js';
import { usageError } from '../cli-error.js';
import { usageStoreProblem } from '../../usage/open-ledger.js';
import { shownWebhook } from '../../usage/usage-webhook.js';
import { note, printLine } from '../output.js';
import { parsePort, parsePositiveInteger } from '../parse-options.js';
import { configInForce, openConfig } from '../config-in-force.js';
import type { ServerState } from '../server-state.js';

interface SettingKey {
  describe: string;
  /** Values worth offering in shell completion (the key takes others too). */
  values?: readonly string[];
  get(settings: Settings): string | number;
  set(settings: Settings, value: string): void;
}

/** The settings `config get/set` reach; keys, backends and routes have their own commands. */
export const SETTING_KEYS: Record<string, SettingKey> = {
  'server.host': {
    describe: 'address serve binds to (read when serve starts)',
    get: (s) => s.server.host,
    set: (s, v) => void (s.server.host = v),
  },
  'server.port': {
    describe: 'port serve listens on (read when serve starts)',
    get: (s) => s.server.port,
    set: (s, v) => void (s.server.port = parsePort(v)),
  },
  'server.bodyLimitBytes': {
    describe: 'largest request body accepted (413 past it)',
    get: (s) => s.server.bodyLimitBytes,
    set: (s, v) => void (s.server.bodyLimitBytes = parsePositiveInteger(v, 'server.bodyLimitBytes')),
  },
  'server.bodyTimeoutMs': {
    describe: 'ms from request headers to the end of the body (408 and close past it; read when serve starts)',
    get: (s) => s.server.bodyTimeoutMs,
    set: (s, v) => void (s.server.bodyTimeoutMs = parseDuration(v, 'server.bodyTimeoutMs')),
  },
  'server.headersTimeoutMs': {
    describe: 'ms to receive request headers (408 and close past it; read when serve starts)',
    get: (s) => s.server.headersTimeoutMs,
    set: (s, v) => void (s.server.headersTimeoutMs = parseDuration(v, 'server.headersTimeoutMs')),
  },
  'server.maxConnections': {
    describe: 'open client connections allowed (503 and close past it; read when serve starts)',
    get: (s) => s.server.maxConnections,
    set: (s, v) => void (s.server.maxConnections = parsePositiveInteger(v, 'server.maxConnections')),
  },
  'server.metrics': {
    describe: 'serve Prometheus metrics on GET /metrics (true or false; read when serve starts)',
    values: ['true', 'false'],
    get: (s) => String(s.server.metrics),
    set: (s, v) => {
      if (v !== 'true' && v !== 'false') throw usageError(`server.metrics: expected 'true' or 'false', got '${v}'`);
      s.server.metrics = v === 'true';
    },
  },
  'server.ui': {
    describe: 'serve the dashboard at /ui (true or false; read when serve starts; serve --ui turns it on too)',
    values: ['true', 'false'],
    get: (s) => String(s.server.ui),
    set: (s, v) => {
      if (v !== 'true' && v !== 'false') throw usageError(`server.ui: expected 'true' or 'false', got '${v}'`);
      s.server.ui = v === 'true';
    },
  },
  'server.websockets': {
    describe: 'take Responses over WebSocket on GET /v1/responses (true or false; off, upgrades get 426 and clients stay on HTTP)',
    values: ['true', 'false'],
    get: (s) => String(s.server.websockets),
    set: (s, v) => {
      if (v !== 'true' && v !== 'false') throw usageError(`server.websockets: expected 'true' or 'false', got '${v}'`);
      s.server.websockets = v === 'true';
    },
  },
  'server.otel': {
    describe: 'export an OpenTelemetry span per request to OTEL_EXPORTER_OTLP_ENDPOINT (true or false; read when serve starts; serve --otel turns it on too)',
    values: ['true', 'false'],
    get: (s) => String(s.server.otel),
    set: (s, v) => {
      if (v !== 'true' && v !== 'false') throw usageError(`server.otel: expected 'true' or 'false', got '${v}'`);
      s.server.otel = v === 'true';
    },
  },
  'server.requestLogDays': {
    describe: 'days the searchable request log (svc-router logs) keeps a request (read when serve starts)',
    get: (s) => s.server.requestLogDays,
    set: (s, v) => void (s.server.requestLogDays = parsePositiveInteger(v, 'server.requestLogDays')),
  },
  'server.requestLogMaxBytes': {
    describe: 'bytes the searchable request log may take on disk (read when serve starts)',
    get: (s) => s.server.requestLogMaxBytes,
    set: (s, v) => void (s.server.requestLogMaxBytes = parsePositiveInteger(v, 'server.requestLogMaxBytes')),
  },
  'server.tls.cert': tlsPathKey('cert', 'PEM certificate (chain) serve answers HTTPS with; with server.tls.key (\'\' turns HTTPS off; read when serve starts)'),
  'server.tls.key': tlsPathKey('key', "the certificate's PEM private key, a file only you can read (read when serve starts)"),
  'server.hosts': listKey(
    'hosts',
    "names the dashboard, /admin and /metrics answer to in Host, comma-separated, besides the loopback names or the address bound ('' for none)",
    parseHostName,
    'a host name or IP address without a port, e.g. router.example.com',
  ),
  'server.cors': listKey(
    'cors',
    "origins whose browser pages may call the model endpoints (CORS), comma-separated ('' for none)",
    (entry) => parseOrigin(entry),
    'an origin such as https://app.example.com or http://localhost:5173',
  ),
  'usage.store': {
    describe: "where usage is recorded: 'file', or redis://HOST:PORT (or redis-sentinel://HOST:PORT,…/MASTER) to share it between routers (read when serve starts)",
    values: ['file'],
    get: (s) => s.usage.store,
    set: (s, v) => {
      const problem = usageStoreProblem(v);
      if (problem) throw usageError(`usage.store: ${problem}`);
      s.usage.store = v;
    },
  },
  'routing.sessionHeader': {
    describe: "a request header naming the client's session, read first: one session's requests stay on one target and pooled key ('' for none)",
    get: (s) => s.routing.sessionHeader ?? '',
    set: (s, v) => {
      if (v === '') return void delete s.routing.sessionHeader;
      if (!HEADER_NAME.test(v) || CREDENTIAL_HEADERS.has(v.toLowerCase())) throw usageError(`routing.sessionHeader: expected a header name that is not a credential's, e.g. x-session-id, got '${v}'`);
      s.routing.sessionHeader = v.toLowerCase();
    },
  },
  'limits.outputReserveTokens': {
    describe: 'output held against the cap for a request that sets no max output tokens',
    get: (s) => s.limits.outputReserveTokens,
    set: (s, v) => void (s.limits.outputReserveTokens = parsePositiveInteger(v, 'limits.outputReserveTokens')),
  },
  'limits.reservationTtlMs': {
    describe: 'ms a cap reservation outlives a router that died before settling it',
    get: (s) => s.limits.reservationTtlMs,
    set: (s, v) => void (s.limits.reservationTtlMs = parseDuration(v, 'limits.reservationTtlMs')),
  },
  'limits.session.tokens': {
    describe: "input plus output tokens one client session may use; its requests past it get a 429 ('' for no cap)",
    get: (s) => s.limits.session?.tokens ?? '',
    set: (s, v) => setSessionLimit(s, 'tokens', v === '' ? undefined : parsePositiveInteger(v, 'limits.session.tokens')),
  },
  'limits.session.usd': {
    describe: "US dollars one client session may spend, at the prices its usage is billed at ('' for no cap)",
    get: (s) => s.limits.session?.usd ?? '',
    set: (s, v) => setSessionLimit(s, 'usd', v === '' ? undefined : parsePositiveAmount(v, 'limits.session.usd')),
  },
  'notify.webhook': {
    describe: "URL sent one JSON POST when a key crosses 50, 80 and 100 % of its 30-day cap, once each per 30 days ('' for none; shown without its path)",
    get: (s) => (s.notify.webhook ? shownWebhook(s.notify.webhook) : ''),
    set: (s, v) => {
      if (v === '') return void delete s.notify.webhook;
      // Checked, but never echoed: the URL may hold a token.
      if (!URL.canParse(v) || !/^https?:$/.test(new URL(v).protocol)) throw usageError('notify.webhook: expected an http:// or https:// URL');
      s.notify.webhook = v;
    },
  },
  'guardrails.secrets': {
    describe: "credentials in a request's text: off, warn (named in x-svc-warning), mask (placeholders upstream) or refuse (400); a route may set its own (routes guard)",
    values: SECRETS_MODES,
    get: (s) => s.guardrails.secrets,
    set: (s, v) => {
      if (!(SECRETS_MODES as readonly string[]).includes(v)) throw usageError(`guardrails.secrets: expected ${SECRETS_MODES.join(', ')}, got '${v}'`);
      s.guardrails.secrets = v as SecretsMode;
    },
  },
  'safeguards.classifier': {
    describe: "the route asked whether each of Claude Code's tool calls is dangerous, in auto mode on routes whose upstream gives no verdict ('' for none: Claude Code then asks the user)",
    values: SKUS,
    get: (s) => s.safeguards.classifier ?? '',
    set: (s, v) => {
      if (v === '') return void delete s.safeguards.classifier;
      if (!ROUTE_NAME.test(v)) throw usageError(`safeguards.classifier: expected a route name such as svc.intelligent-lite, got '${v}'`);
      s.safeguards.classifier = v;
    },
  },
  'safeguards.timeoutMs': {
    describe: "ms the router waits for one safety verdict, from the end of its tool call, before telling Claude Code the check failed (it then asks the user)",
    get: (s) => s.safeguards.timeoutMs,
    set: (s, v) => void (s.safeguards.timeoutMs = parseDuration(v, 'safeguards.timeoutMs')),
  },
  'defaults.organisation': {
    describe: 'organisation given to new keys',
    get: (s) => s.defaults.organisation,
    set: (s, v) => void (s.defaults.organisation = v),
  },
  'defaults.tier': { describe: 'tier given to new keys', get: (s) => s.defaults.tier, set: (s, v) => void (s.defaults.tier = v) },
  'defaults.capTokens': {
    describe: '30-day token cap given to new keys',
    get: (s) => s.defaults.capTokens,
    set: (s, v) => void (s.defaults.capTokens = parsePositiveInteger(v, 'defaults.capTokens')),
  },
};

/**
 * One of server.tls's two file paths, stored absolute (serve may start in another directory). An
 * empty value removes both: half a pair serves nothing.
 */
function tlsPathKey(part: 'cert' | 'key', describe: string): SettingKey {
  return {
    describe,
    get: (s) => s.server.tls?.[part] ?? '',
    set: (s, v) => {
      if (v === '') return void delete s.server.tls;
      if (!fs.existsSync(v)) throw usageError(`server.tls.${part}: no such file: ${v}`);
      s.server.tls = { cert: '', key: '', ...s.server.tls, [part]: path.resolve(v) };
    },
  };
}

/** A list setting of server's, given comma-separated; each entry is checked and stored in its one spelling. */
function listKey(field: 'hosts' | 'cors', describe: string, normalise: (entry: string) => string | undefined, expected: string): SettingKey {
  return {
    describe,
    get: (s) => (Array.isArray(s.server[field]) ? s.server[field] : []).join(','),
    set: (s, v) => {
      const entries = v
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');
      s.server[field] = [
        ...new Set(
          entries.map((entry) => {
            const normalised = normalise(entry);
            if (normalised === undefined) throw usageError(`server.${field}: expected ${expected}, got '${entry}'`);
            return normalised;
          }),
        ),
      ];
    },
  };
}

/** Sets or clears one limit of the session cap; a cap with no limit left is no cap. */
function setSessionLimit(s: Settings, limit: 'tokens' | 'usd', value: number | undefined): void {
  const session = { ...s.limits.session };
  if (value === undefined) delete session[limit];
  else session[limit] = value;
  if (Object.keys(session).length) s.limits.session = session;
  else delete s.limits.session;
}

/** A positive amount, fractions allowed (dollars). */
function parsePositiveAmount(value: string, name: string): number {
  const amount = /^\d+(?:\.\d+)?$|^\.\d+$/.test(value) ? Number(value) : NaN;
  if (!(amount > 0) || !Number.isFinite(amount)) throw usageError(`${name} must be a positive amount such as 5 or 0.50, got '${value}'`);
  return amount;
}
/** A model name a route answers to, as routes are named (the declarative file's MODEL_NAME). */
const ROUTE_NAME = /^[\w.:-]+$/;

/** Milliseconds, at most a day (timers cannot wait much longer). */
function parseDuration(value: string, name: string): number {
  const ms = parsePositiveInteger(value, name);
  if (ms > 86_400_000) throw usageError(`${name} must be at most 86400000 (a day), got '${value}'`);
  return ms;
}

function settingKey(name: string): SettingKey {
  // Only the table's own entries: `config get constructor` is an unknown key, not Object's.
  const key = Object.hasOwn(SETTING_KEYS, name) ? SETTING_KEYS[name] : undefined;
  if (!key) throw usageError(`unknown config key '${name}'; known keys: ${Object.keys(SETTING_KEYS).join(', ')}`);
  return key;
}

export const runConfigPath = async (): Promise<void> => printLine((await openConfig()).path);

export const runConfigGet = async (name: string): Promise<void> => printLine(String(settingKey(name).get((await openConfig()).read())));

export async function runConfigSet(name: string, value: string): Promise<void> {
  const key = settingKey(name);
  const config = await openConfig();
  // Validate before writing, so a bad value changes nothing.
  key.set(structuredClone(config.read()), value);
  config.update((settings) => key.set(settings, value));
  printLine(`${name} = ${String(key.get(config.read()))}`);
  const serve = (await configInForce()).serve;
  if (serve) sayWhenApplied(name, serve);
}

/**
 * A running serve takes most settings from the file at once; one it reads only when it starts
 * (the settings' shape says which) waits for a restart, and one its own flag overrides, for a
 * start without that flag.
 */
function sayWhenApplied(name: string, serve: ServerState): void {
  const applied = whenApplied(name.split('.'));
  if (applied.at !== 'start') return;
  const flag = applied.flag;
  if (flag && serve.argv?.some((arg) => arg === flag || arg.startsWith(`${flag}=`))) {
    note(`the running serve (pid ${serve.pid}) was started with ${flag}, which takes the place of ${name}; svc-router restart keeps ${flag}: stop it and start serve without ${flag} to use the setting`);
    return;
  }
  note(`the running serve (pid ${serve.pid}) reads ${name} only when it starts: run svc-router restart to apply it`);
}
