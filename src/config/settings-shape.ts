/**
 * The types config.json's values must have for the router to use them, as the Settings interface
 * (settings.ts) gives them: a value of another type (a list where a table belongs, text where a
 * number does) is a problem with its path, so that such a version of the file is refused as a
 * broken one is, instead of failing the requests that read it. Fields may be left out (defaults
 * fill them) and fields it does not know are kept: only the types of known ones are checked, and
 * unknownSettingsFields names the others.
 */

import type { JsonPath } from '../files/json-text.js';
import type { BackendSettings, BackendTimeouts, GuardrailSettings, KeyPoolSettings, KeyRecord, LimitSettings, ModelPrice, NotifySettings, PooledKey, RateLimitSettings, RoutePolicy, RoutingSettings, SafeguardSettings, ServerSettings, SessionLimit, Settings, TaskConditions, TaskRule, TlsFiles } from './settings.js';
import { unknownFieldMessage } from './unknown-field.js';

type Shape = 'string' | 'number' | 'boolean' | ObjectShape | { entries: Shape } | { items: Shape } | ReadAtStart;

/**
 * A field a running serve reads only when it starts (it binds, opens or builds something with it),
 * so a change applies at its next start. Every other field is read at each use: a change to the
 * file applies at once. `flag`: the serve option that overrides the field when given.
 */
interface ReadAtStart {
  atStart: Shape;
  flag?: string;
}
const atStart = (shape: Shape, flag?: string): ReadAtStart => ({ atStart: shape, ...(flag ? { flag } : {}) });

interface ObjectShape {
  fields: Readonly<Record<string, Shape>>;
  required?: readonly string[];
  /** Fields it does not name are passed on, not ignored (OpenRouter's provider object): none is unknown. */
  open?: boolean;
}

const number = 'number';
const string = 'string';
const boolean = 'boolean';
const table = (entries: Shape): Shape => ({ entries });
const list = (items: Shape): Shape => ({ items });

/** Every key of T (of each member, for a union), optional ones included. */
type KeysOf<T> = T extends unknown ? keyof T : never;

/**
 * The shape of an object of type T, naming each of its fields and no other: the compiler holds the
 * shape to the Settings interface, so a field added there is known here (and never reported unknown).
 */
const object =
  <T>() =>
  <F extends Record<KeysOf<T>, Shape>>(fields: F & Record<Exclude<keyof F, KeysOf<T>>, never>, options: { required?: ReadonlyArray<KeysOf<T> & string> } = {}): ObjectShape => ({ fields, ...options });

const TARGETS = list(string);
const RATES = { input: number, output: number, cacheRead: number, cacheWrite: number } as const;
const GUARDRAILS = object<GuardrailSettings>()({ secrets: string });

const SETTINGS_SHAPE: Shape = object<Settings>()({
  localKey: string,
  secret: string,
  keys: table(
    object<KeyRecord>()(
      {
        developer: string,
        organisation: string,
        tier: string,
        capTokens: number,
        hash: string,
        hint: string,
        createdAt: string,
        rateLimit: object<RateLimitSettings>()({ requestsPerMinute: number, tokensPerMinute: number }),
      },
      // What a request's identity is made of (identity/authenticate.ts): a record without one is no key.
      { required: ['developer', 'organisation', 'tier', 'capTokens', 'hash'] },
    ),
  ),
  backends: table(
    object<BackendSettings>()(
      {
        type: string,
        baseUrl: string,
        apiKey: string,
        apiKeyEnv: string,
        headers: table(string),
        timeouts: object<BackendTimeouts>()({ connectMs: number, firstByteMs: number, idleMs: number, totalMs: number }),
        keyPool: object<KeyPoolSettings>()(
          { strategy: string, keys: list(object<PooledKey>()({ apiKey: string, apiKeyEnv: string })), rateLimitCooldownMs: number, paymentCooldownMs: number },
          { required: ['keys'] },
        ),
        cacheControl: boolean,
        auth: string,
        anthropicVersion: string,
        apiVersion: string,
        project: string,
        region: string,
        credentials: string,
        profile: string,
        awsProfile: string,
        websocket: boolean,
        // OpenRouter's provider routing object, sent as it is: the fields it names are typed, others pass.
        providerRouting: {
          fields: { order: list(string), allow_fallbacks: boolean, only: list(string), ignore: list(string), sort: string, require_parameters: boolean, data_collection: string, quantizations: list(string) },
          open: true,
        },
      },
      { required: ['type', 'baseUrl'] },
    ),
  ),
  routes: table(TARGETS),
  routePolicies: table(
    object<RoutePolicy>()({
      rules: list(
        object<TaskRule>()(
          {
            name: string,
            when: object<TaskConditions>()({ background: boolean, thinking: boolean, contextAbove: number, image: boolean, webSearch: boolean, model: string }),
            targets: TARGETS,
          },
          { required: ['name', 'when', 'targets'] },
        ),
      ),
      weights: table(number),
      guardrails: GUARDRAILS,
      search: string,
    }),
  ),
  routing: object<RoutingSettings>()({ sessionHeader: string }),
  contextWindows: table(number),
  // What serve binds, listens with and builds when it starts is read then (src/cli/commands/serve.ts,
  // src/server/http-server.ts); the body limit, WebSocket switch, host names and origins at each request.
  server: object<ServerSettings>()({
    host: atStart(string, '--host'),
    port: atStart(number, '--port'),
    bodyLimitBytes: number,
    metrics: atStart(boolean, '--metrics'),
    bodyTimeoutMs: atStart(number),
    headersTimeoutMs: atStart(number),
    maxConnections: atStart(number),
    ui: atStart(boolean, '--ui'),
    websockets: boolean,
    socketStreams: number,
    socketTurnsPerStream: number,
    socketKeptBytes: number,
    otel: atStart(boolean, '--otel'),
    requestLogDays: atStart(number),
    requestLogMaxBytes: atStart(number),
    tls: atStart(object<TlsFiles>()({ cert: string, key: string }, { required: ['cert', 'key'] }), '--tls-cert'),
    hosts: list(string),
    cors: list(string),
  }),
  limits: object<LimitSettings>()({ outputReserveTokens: number, reservationTtlMs: number, session: object<SessionLimit>()({ tokens: number, usd: number }) }),
  guardrails: GUARDRAILS,
  notify: object<NotifySettings>()({ webhook: string, webhookEnv: string }),
  safeguards: object<SafeguardSettings>()({ classifier: string, timeoutMs: number }),
  // The usage ledger is opened when serve starts (src/handlers/app.ts).
  usage: object<Settings['usage']>()({ store: atStart(string, '--usage-store') }),
  prices: table(object<ModelPrice>()({ ...RATES, longContext: object<NonNullable<ModelPrice['longContext']>>()({ aboveInputTokens: number, ...RATES }) })),
  defaults: object<Settings['defaults']>()({ organisation: string, tier: string, capTokens: number }),
});

export interface ShapeProblem {
  path: JsonPath;
  message: string;
}

/**
 * Every field config.json holds that the settings do not know, with its path: the router ignores
 * it, so a misspelt one leaves its setting at the default. Each is named with the known fields of
 * its object (and the near miss, if one is), as the declarative file's are.
 */
export function unknownSettingsFields(value: unknown): ShapeProblem[] {
  const found: ShapeProblem[] = [];
  const walk = (node: unknown, shape: Shape, path: JsonPath): void => {
    if (typeof shape === 'string') return;
    if ('atStart' in shape) return walk(node, shape.atStart, path);
    if ('items' in shape) return void (Array.isArray(node) && node.forEach((item, index) => walk(item, shape.items, [...path, index])));
    if (!isObject(node)) return;
    if ('entries' in shape) return void Object.entries(node).forEach(([name, entry]) => walk(entry, shape.entries, [...path, name]));
    const known = Object.keys(shape.fields);
    for (const [name, field] of Object.entries(node)) {
      if (Object.hasOwn(shape.fields, name)) walk(field, shape.fields[name]!, [...path, name]);
      else if (!shape.open) found.push({ path: [...path, name], message: `${path.length ? `${describePath(path)}: ` : ''}${unknownFieldMessage(name, known)}` });
    }
  };
  walk(value, SETTINGS_SHAPE, []);
  return found;
}

/** When a change to a setting takes effect in a running serve: at its next start (unless `flag` overrides it there), or at once. */
export type WhenApplied = { at: 'start'; flag?: string } | { at: 'once' };

/** When a change to the setting at `path` (`['server', 'ui']`) applies in a running serve: a property of the field, or of an object it is in. */
export function whenApplied(path: readonly string[]): WhenApplied {
  let shape: Shape | undefined = SETTINGS_SHAPE;
  for (const segment of [...path, undefined]) {
    if (shape && typeof shape === 'object' && 'atStart' in shape) return { at: 'start', ...(shape.flag ? { flag: shape.flag } : {}) };
    if (!shape || typeof shape === 'string' || segment === undefined) break;
    shape = 'fields' in shape ? (Object.hasOwn(shape.fields, segment) ? shape.fields[segment] : undefined) : 'entries' in shape ? shape.entries : 'items' in shape ? shape.items : undefined;
  }
  return { at: 'once' };
}

/** Every value of the wrong type, with its path (at most `limit`: a file that is wholly wrong need not be listed in full). */
export function settingsShapeProblems(value: unknown, limit = 10): ShapeProblem[] {
  const problems: ShapeProblem[] = [];
  check(value, SETTINGS_SHAPE, [], problems, limit);
  return problems;
}

function check(value: unknown, shape: Shape, path: JsonPath, problems: ShapeProblem[], limit: number): void {
  if (problems.length >= limit) return;
  const fail = (expected: string): void => void problems.push({ path, message: `${describePath(path)}: expected ${expected}, got ${describe(value)}` });
  if (shape === 'string') return void (typeof value === 'string' || fail('text'));
  if (shape === 'boolean') return void (typeof value === 'boolean' || fail('true or false'));
  // JSON cannot say Infinity, but 1e400 reads as it.
  if (shape === 'number') return void ((typeof value === 'number' && Number.isFinite(value)) || fail('a number'));
  if ('atStart' in shape) return check(value, shape.atStart, path, problems, limit);
  if ('items' in shape) {
    if (!Array.isArray(value)) return fail('a list');
    value.forEach((item, index) => check(item, shape.items, [...path, index], problems, limit));
    return;
  }
  if (!isObject(value)) return fail(path.length ? 'an object' : 'an object of settings ({ "keys": …, "backends": …, "routes": … })');
  if ('entries' in shape) {
    for (const [name, entry] of Object.entries(value)) check(entry, shape.entries, [...path, name], problems, limit);
    return;
  }
  for (const name of shape.required ?? []) {
    if (!Object.hasOwn(value, name) && problems.length < limit) problems.push({ path, message: `${describePath(path)}: "${name}" is required` });
  }
  for (const [name, field] of Object.entries(shape.fields)) {
    // At the top, null is as good as leaving the field out (withDefaults fills both).
    if (Object.hasOwn(value, name) && !(path.length === 0 && value[name] === null)) check(value[name], field, [...path, name], problems, limit);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `routes["svc.intelligent-pro"][0]`, `server.port`: as the value is reached in the file. */
function describePath(path: JsonPath): string {
  if (!path.length) return 'the file';
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(segment)) text += text ? `.${segment}` : segment;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number') return Number.isFinite(value) ? 'a number' : 'a number too large';
  // The value itself is not echoed: it may be a key.
  return typeof value === 'string' ? 'text' : typeof value;
}
