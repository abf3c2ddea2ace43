/**
 * The types config.json's values must have for the router to use them, as the Settings interface
 * (settings.ts) gives them: a value of another type (a list where a table belongs, text where a
 * number does) is a problem with its path, so that such a version of the file is refused as a
 * broken one is, instead of failing the requests that read it. Fields may be left out (defaults
 * fill them) and fields it does not know are kept: only the types of known ones are checked.
 */

import type { JsonPath } from '../files/json-text.js';

type Shape =
  | 'string'
  | 'number'
  | 'boolean'
  | { fields: Readonly<Record<string, Shape>>; required?: readonly string[] }
  | { entries: Shape }
  | { items: Shape };

const number = 'number';
const string = 'string';
const boolean = 'boolean';
const table = (entries: Shape): Shape => ({ entries });
const list = (items: Shape): Shape => ({ items });

const TARGETS = list(string);
const RATES = { input: number, output: number, cacheRead: number, cacheWrite: number } as const;

const SETTINGS_SHAPE: Shape = {
  fields: {
    localKey: string,
    secret: string,
    keys: table({
      fields: {
        developer: string,
        organisation: string,
        tier: string,
        capTokens: number,
        hash: string,
        hint: string,
        createdAt: string,
        rateLimit: { fields: { requestsPerMinute: number, tokensPerMinute: number } },
      },
      // What a request's identity is made of (identity/authenticate.ts): a record without one is no key.
      required: ['developer', 'organisation', 'tier', 'capTokens', 'hash'],
    }),
    backends: table({
      fields: {
        type: string,
        baseUrl: string,
        apiKey: string,
        apiKeyEnv: string,
        headers: table(string),
        timeouts: { fields: { connectMs: number, firstByteMs: number, idleMs: number, totalMs: number } },
        keyPool: {
          fields: { strategy: string, keys: list({ fields: { apiKey: string, apiKeyEnv: string } }), rateLimitCooldownMs: number, paymentCooldownMs: number },
          required: ['keys'],
        },
        cacheControl: boolean,
        auth: string,
        anthropicVersion: string,
        apiVersion: string,
        project: string,
        region: string,
        credentials: string,
        profile: string,
        awsProfile: string,
        providerRouting: {
          fields: { order: list(string), allow_fallbacks: boolean, only: list(string), ignore: list(string), sort: string, require_parameters: boolean, data_collection: string, quantizations: list(string) },
        },
      },
      required: ['type', 'baseUrl'],
    }),
    routes: table(TARGETS),
    routePolicies: table({
      fields: {
        rules: list({
          fields: {
            name: string,
            when: { fields: { background: boolean, thinking: boolean, contextAbove: number, image: boolean, webSearch: boolean, model: string } },
            targets: TARGETS,
          },
          required: ['name', 'when', 'targets'],
        }),
        weights: table(number),
        search: string,
      },
    }),
    routing: { fields: { sessionHeader: string } },
    contextWindows: table(number),
    server: {
      fields: {
        host: string,
        port: number,
        bodyLimitBytes: number,
        metrics: boolean,
        bodyTimeoutMs: number,
        headersTimeoutMs: number,
        maxConnections: number,
        ui: boolean,
        websockets: boolean,
        otel: boolean,
        requestLogDays: number,
        requestLogMaxBytes: number,
        tls: { fields: { cert: string, key: string }, required: ['cert', 'key'] },
      },
    },
    limits: { fields: { outputReserveTokens: number, reservationTtlMs: number, session: { fields: { tokens: number, usd: number } } } },
    notify: { fields: { webhook: string, webhookEnv: string } },
    safeguards: { fields: { classifier: string, timeoutMs: number } },
    usage: { fields: { store: string } },
    prices: table({ fields: { ...RATES, longContext: { fields: { aboveInputTokens: number, ...RATES } } } }),
    defaults: { fields: { organisation: string, tier: string, capTokens: number } },
  },
};

export interface ShapeProblem {
  path: JsonPath;
  message: string;
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
