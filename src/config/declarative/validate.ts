/**
 * Checks a declarative file and says what is wrong where: every problem names the path, line and
 * column of the offending value, and any value it echoes is redacted first.
 */

import type { z } from 'zod';
import { redactText } from '../../core/redact.js';
import { isRedisStoreUrl, parseRedisStore, type RedisStore } from '../../core/redis-store.js';
import { SLUG_PATTERN } from '../../core/router-keys.js';
import { isRoutableModelName, ROUTABLE_IDS, SKUS } from '../../core/model-names.js';
import { skuTypoOf } from '../../core/sku-typo.js';
import { OFFLINE_BACKEND, parseTarget } from '../../core/target.js';
import { locate, parseFile, type JsonPath, type ParsedFile, type Problem } from './parse.js';
import { cacheControlElsewhere } from '../cache-control.js';
import { apiVersionConflict, AWS_REGION_FORMAT, PROVIDER_ROUTING_ELSEWHERE, SETTING_TYPES, settingElsewhere, settingFits, type TypeSetting } from '../type-settings.js';
import { CREDENTIAL_HEADERS } from './placement.js';
import { BACKEND_NAME, declarativeSchema, type DeclarativeConfig } from './schema.js';
import { didYouMean, unknownFieldMessage } from '../unknown-field.js';


export interface ValidateOptions {
  /** Backends routes may name when the file has no `backends` of its own (the stored ones). */
  storedBackends?: readonly string[];
  /** Where `*Env` names are looked up (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
}

export interface Validation {
  /** The file's settings, when there is no problem. */
  config?: DeclarativeConfig;
  problems: Problem[];
  /** Worth saying, but the file is usable: an environment variable it names is not set here. */
  warnings: Problem[];
}

export function validateText(text: string, options: ValidateOptions = {}): Validation {
  const parsed = parseFile(text);
  if (parsed.problems.length) return { problems: parsed.problems, warnings: [] };
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const at = (path: JsonPath, message: string, list = problems, key = false) => {
    const node = locate(parsed.root, path, key);
    const { line, column } = parsed.position(node?.offset ?? 0);
    list.push({ path, line, column, message: redactText(message) });
  };

  const value = parsed.value;
  if (!isObject(value)) {
    at([], 'expected an object of settings ({ "backends": …, "routes": … })');
    return { problems, warnings };
  }
  findCredentials(value, [], at);
  const result = declarativeSchema.safeParse(value);
  if (!result.success) for (const issue of result.error.issues) describeIssue(issue, parsed, at);
  checkNames(value, at);
  checkTargets(value, options.storedBackends ?? [], at);
  checkSearchTargets(value, options.storedBackends ?? [], at);
  checkUsageStore(value, at);
  checkEnvNames(value, options.env ?? process.env, (path, message) => at(path, message, warnings));

  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  return problems.length ? { problems, warnings } : { config: value as DeclarativeConfig, problems, warnings };
}

/** What keyHint writes: the key's prefix and four characters of its random part, then an ellipsis. */
const KEY_HINT = /^svc_[a-z0-9-]{1,39}_[A-Za-z0-9_-]{0,4}…$/;

type At = (path: JsonPath, message: string, list?: Problem[], key?: boolean) => void;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Any string that redaction would change is a credential written into the file. */
function findCredentials(node: unknown, path: JsonPath, at: At): void {
  if (typeof node === 'string') {
    if (holdsCredential(node)) at(path, 'this looks like a credential: secrets do not belong in this file; put it in an environment variable and name that variable (apiKeyEnv)');
    return;
  }
  if (Array.isArray(node)) return node.forEach((item, index) => findCredentials(item, [...path, index], at));
  if (!isObject(node)) return;
  for (const [name, child] of Object.entries(node)) {
    // A backend's `apiKey` is refused by name already, with what to write instead; a key record's
    // `hint` is the few characters `keys list` prints to tell keys apart, shaped like a key's start.
    if (name === 'apiKey' || (name === 'hint' && path[0] === 'keys' && typeof child === 'string' && KEY_HINT.test(child))) continue;
    findCredentials(child, [...path, name], at);
  }
}

/**
 * Whether redaction would change a string. In a URL only the parts that can carry a credential
 * count (a password, the path, the query): a host name such as `pk-eu1.example.com` is not a key.
 */
function holdsCredential(text: string): boolean {
  if (/^https?:\/\//i.test(text)) {
    try {
      const url = new URL(text);
      const rest = `${url.pathname}${url.search}${url.hash}`;
      return url.password !== '' || redactText(url.username) !== url.username || redactText(rest) !== rest;
    } catch {
      // not a URL after all: judged as any other text
    }
  }
  return redactText(text) !== text;
}

function describeIssue(issue: z.core.$ZodIssue, parsed: ParsedFile, at: At): void {
  const path = issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol');
  const actual = valueAt(parsed.value, path);
  switch (issue.code) {
    case 'unrecognized_keys':
      for (const key of issue.keys) at([...path, key], unknownField(key, path), undefined, true);
      return;
    case 'invalid_key':
      return; // names are checked by checkNames, with messages that say what a name may hold
    case 'invalid_type':
      return at(path, actual === undefined ? `"${String(path.at(-1))}" is required` : `expected ${article(issue.expected)}, got ${describe(actual)}`);
    case 'invalid_value': {
      const options = issue.values.map(String);
      const hint = typeof actual === 'string' ? didYouMean(actual, options) : '';
      return at(path, `expected one of ${options.join(', ')}; got ${describe(actual)}${hint}`);
    }
    case 'invalid_format':
      return at(path, `not a valid ${formatName(issue.format, path)}: ${describe(actual)}`);
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? (issue.inclusive ? 'at least' : 'more than') : issue.inclusive ? 'at most' : 'less than';
      const what = issue.origin === 'array' ? ` item(s)` : issue.origin === 'string' ? ' character(s)' : '';
      return at(path, `must be ${bound} ${String(issue.code === 'too_small' ? issue.minimum : issue.maximum)}${what}; got ${describe(actual)}`);
    }
    default:
      return at(path, issue.message);
  }
}

function unknownField(key: string, path: JsonPath): string {
  if (key === 'apiKey') return 'unknown field "apiKey": a literal key does not belong in this file; set "apiKeyEnv" to the name of the environment variable that holds it';
  if (key === 'secret' || key === 'localKey') return `unknown field "${key}": secrets stay in the local config.json (the file may name a sealing secret's variable in "sealingSecretEnv")`;
  return unknownFieldMessage(key, fieldsAt(path));
}

/** The names the schema allows in the object at a path (records' values and arrays' items followed). */
function fieldsAt(path: JsonPath): string[] {
  let schema: z.core.$ZodType | undefined = declarativeSchema;
  for (const segment of [...path, undefined]) {
    while (schema && schema._zod.def.type === 'optional') schema = (schema._zod.def as z.core.$ZodOptionalDef).innerType;
    if (!schema || segment === undefined) break;
    const def: z.core.$ZodTypeDef = schema._zod.def;
    if (def.type === 'object') schema = (def as z.core.$ZodObjectDef).shape[String(segment)];
    else if (def.type === 'record') schema = (def as z.core.$ZodRecordDef).valueType;
    else if (def.type === 'array') schema = (def as z.core.$ZodArrayDef).element;
    else schema = undefined;
  }
  return schema?._zod.def.type === 'object' ? Object.keys((schema._zod.def as z.core.$ZodObjectDef).shape) : [];
}

/** Names the schema's record patterns cannot fully say (and that zod skips, such as `__proto__`). */
function checkNames(config: Record<string, unknown>, at: At): void {
  if (isObject(config.backends)) {
    for (const name of Object.keys(config.backends)) {
      if (name === OFFLINE_BACKEND) at(['backends', name], `"${OFFLINE_BACKEND}" is the built-in backend; choose another name`, undefined, true);
      else if (!BACKEND_NAME.test(name)) at(['backends', name], `backend name "${name}" is not valid: use letters, digits, '-' and '_' (up to 40, starting with a letter or digit)`, undefined, true);
      const backend = config.backends[name];
      if (isObject(backend) && backend.cacheControl === true && backend.type !== 'openai-chat') {
        at(['backends', name, 'cacheControl'], `only an openai-chat backend takes "cacheControl": ${cacheControlElsewhere(backend.type)}`);
      }
      if (isObject(backend)) {
        for (const setting of Object.keys(SETTING_TYPES) as TypeSetting[]) {
          if (backend[setting] !== undefined && !settingFits(setting, backend.type)) at(['backends', name, setting], settingElsewhere(setting, `"${setting}"`));
        }
        // One region setting, in the form of each type's own names.
        if (backend.type === 'bedrock' && typeof backend.region === 'string' && !AWS_REGION_FORMAT.test(backend.region)) {
          at(['backends', name, 'region'], `"region" must be an AWS region such as us-east-1, got "${backend.region}"`);
        }
        const conflict = typeof backend.baseUrl === 'string' && typeof backend.apiVersion === 'string' ? apiVersionConflict(backend.baseUrl, backend.apiVersion) : undefined;
        if (conflict) at(['backends', name, 'apiVersion'], conflict);
        if (backend.providerRouting !== undefined && backend.profile !== 'openrouter') at(['backends', name, 'providerRouting'], PROVIDER_ROUTING_ELSEWHERE);
      }
      const headers = isObject(backend) ? backend.headers : undefined;
      if (!isObject(headers)) continue;
      for (const header of Object.keys(headers)) {
        if (CREDENTIAL_HEADERS.has(header.toLowerCase())) {
          at(['backends', name, 'headers', header], `header "${header}" carries a credential: set "apiKeyEnv" to the variable that holds the key instead`, undefined, true);
        }
      }
    }
  }
  if (isObject(config.routes)) {
    for (const model of Object.keys(config.routes)) {
      if (!isRoutableModelName(model)) at(['routes', model], `cannot route "${model}": use an svc.* name (e.g. svc.intelligent-pro) or ${ROUTABLE_IDS.replaceAll("'", '"')}`, undefined, true);
    }
  }
  // A near miss of a built-in SKU is a typo, wherever a route is named.
  for (const section of ['routes', 'routePolicies', 'contextWindows'] as const) {
    const table = config[section];
    if (!isObject(table)) continue;
    for (const name of Object.keys(table)) {
      const typo = skuTypoOf(name);
      if (typo) at([section, name], `"${name}" is not a SKU (did you mean "${typo}"?); a new SKU needs a name clearly apart from ${SKUS.join(', ')}`, undefined, true);
    }
  }
  if (isObject(config.keys)) {
    for (const [slug, record] of Object.entries(config.keys)) {
      if (!SLUG_PATTERN.test(slug)) at(['keys', slug], `developer slug "${slug}" is not valid: lowercase letters, digits and '-'`, undefined, true);
      else if (isObject(record) && typeof record.developer === 'string' && record.developer !== slug) at(['keys', slug, 'developer'], `developer "${record.developer}" differs from its entry's name "${slug}"`);
    }
  }
}

/** Every target names a backend the file (or, without a `backends` section, the stored config) has. */
function checkTargets(config: Record<string, unknown>, storedBackends: readonly string[], at: At): void {
  if (!isObject(config.routes)) return;
  const known = isObject(config.backends) ? Object.keys(config.backends) : [...storedBackends];
  for (const [model, targets] of Object.entries(config.routes)) {
    if (!Array.isArray(targets)) continue;
    targets.forEach((text, index) => {
      if (typeof text !== 'string' || !text) return;
      const { backend } = parseTarget(text);
      if (backend === OFFLINE_BACKEND || known.includes(backend)) return;
      at(['routes', model, index], `unknown backend "${backend}"${didYouMean(backend, known)}${known.length ? ` (backends: ${known.join(', ')}, ${OFFLINE_BACKEND})` : ''}`);
    });
  }
}

/** A route's search target names a backend the file (or the stored config) has. */
function checkSearchTargets(config: Record<string, unknown>, storedBackends: readonly string[], at: At): void {
  if (!isObject(config.routePolicies)) return;
  const known = isObject(config.backends) ? Object.keys(config.backends) : [...storedBackends];
  for (const [model, policy] of Object.entries(config.routePolicies)) {
    const search = isObject(policy) ? policy.search : undefined;
    if (typeof search !== 'string' || !search) continue;
    const { backend } = parseTarget(search);
    if (!known.includes(backend)) at(['routePolicies', model, 'search'], `unknown backend "${backend}"${didYouMean(backend, known)}${known.length ? ` (backends: ${known.join(', ')})` : ''}`);
  }
}

/** A Redis password in the file would be a secret shared with everyone who reads it. */
function checkUsageStore(config: Record<string, unknown>, at: At): void {
  const store = isObject(config.usage) ? config.usage.store : undefined;
  if (typeof store !== 'string' || !isRedisStoreUrl(store)) return;
  let parsed: RedisStore;
  try {
    parsed = parseRedisStore(store);
  } catch (error) {
    at(['usage', 'store'], (error as Error).message);
    return;
  }
  const password = parsed.kind === 'sentinel' ? parsed.password : passwordOf(parsed.url);
  if (password) at(['usage', 'store'], 'a Redis URL with a password does not belong in this file: leave usage.store out and set it on each machine (config set usage.store, or serve --usage-store)');
}

function passwordOf(url: string): string {
  try {
    return new URL(url).password;
  } catch {
    return '';
  }
}

/** A variable the file names but this environment lacks: fine to validate elsewhere, worth a warning here. */
function checkEnvNames(config: Record<string, unknown>, env: NodeJS.ProcessEnv, warn: (path: JsonPath, message: string) => void): void {
  const check = (path: JsonPath, name: unknown) => {
    if (typeof name === 'string' && !env[name]) warn(path, `$${name} is not set in this environment`);
  };
  check(['sealingSecretEnv'], config.sealingSecretEnv);
  if (isObject(config.notify)) check(['notify', 'webhookEnv'], config.notify.webhookEnv);
  if (isObject(config.backends)) for (const [name, backend] of Object.entries(config.backends)) if (isObject(backend)) check(['backends', name, 'apiKeyEnv'], backend.apiKeyEnv);
}

function valueAt(root: unknown, path: JsonPath): unknown {
  let node = root;
  for (const segment of path) {
    if (Array.isArray(node) && typeof segment === 'number') node = node[segment];
    else if (isObject(node) && Object.hasOwn(node, segment)) node = node[segment];
    else return undefined;
  }
  return node;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return `${typeof value} ${String(value)}`;
}

const article = (type: string): string => (type === 'int' ? 'an integer' : type === 'array' ? 'a list' : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

function formatName(format: string, path: JsonPath): string {
  if (format === 'url') return 'http(s) URL';
  if (format === 'datetime') return 'ISO 8601 date and time';
  const field = String(path.at(-1));
  if (field.endsWith('Env')) return 'environment variable name';
  if (field === 'hash') return 'SHA-256 hex digest (64 characters 0-9a-f)';
  if (field === 'store') return "usage store ('file', redis://HOST:PORT or redis-sentinel://HOST:PORT,…/MASTER)";
  if (typeof path.at(-1) === 'number' && path.at(-2) === 'hosts') return 'host name or IP address (without a port)';
  if (typeof path.at(-1) === 'number' && path.at(-2) === 'cors') return 'origin (scheme://host[:port], nothing after)';
  return `value for "${field}"`;
}
