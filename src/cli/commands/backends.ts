import fs from 'node:fs';
import path from 'node:path';
import { BACKEND_TYPES, isBackendType } from '../../core/backend-types.js';
import { defaultVertexBaseUrl, PROJECT_FORMAT, REGION_FORMAT } from '../../backends/vertex/endpoint.js';
import { cacheControlElsewhere } from '../../config/cache-control.js';
import { CHAT_PROFILE_NAMES, isChatProfileName, suggestedChatProfile } from '../../core/chat-profiles.js';
import { ANTHROPIC_VERSION_FORMAT, apiVersionConflict, AWS_REGION_FORMAT, GEMINI_API_VERSION_FORMAT, PROVIDER_ROUTING_ELSEWHERE, settingElsewhere, settingFits } from '../../config/type-settings.js';
import { ANTHROPIC_AUTHS, KEY_POOL_STRATEGIES, type AnthropicAuth, type BackendSettings, type BackendTimeouts, type KeyPoolSettings, type KeyPoolStrategy, type PooledKey } from '../../config/settings.js';
import { bedrockRuntimeUrl } from '../../backends/bedrock/region.js';
import { OFFLINE_BACKEND, parseTarget } from '../../core/target.js';
import { failedError, usageError } from '../cli-error.js';
import { didYouMean } from '../did-you-mean.js';
import { bearerServiceOf } from '../bearer-services.js';
import { parseHttpUrl, parsePositiveInteger } from '../parse-options.js';
import { configInForce, openConfig, requireStored } from '../config-in-force.js';
import { cloudCredentials, describeCredentials } from '../backend-credentials.js';
import { serveEnvironment, serveLacksWarning } from '../key-variables.js';
import { chalk, note, printJson, printLine, printTable, warn } from '../output.js';
import type { ConfigStore } from '../../config/store.js';

const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface AddBackendOptions {
  type: string;
  /** Required but for vertex and bedrock, whose region gives it. */
  baseUrl?: string;
  apiKey?: string;
  apiKeyEnv?: string;
  header?: string[];
  connectTimeout?: string;
  firstByteTimeout?: string;
  idleTimeout?: string;
  totalTimeout?: string;
  cacheControl?: boolean;
  auth?: string;
  anthropicVersion?: string;
  apiVersion?: string;
  profile?: string;
  providerRouting?: string;
  project?: string;
  region?: string;
  credentials?: string;
  awsProfile?: string;
  websocket?: boolean;
}

export async function runBackendsAdd(name: string, options: AddBackendOptions): Promise<void> {
  if (!NAME_PATTERN.test(name)) throw usageError(`backend name '${name}' is not valid: use letters, digits, '-' and '_' (up to 40)`);
  if (name === OFFLINE_BACKEND) throw usageError(`'${OFFLINE_BACKEND}' is the built-in backend; choose another name`);
  if (!isBackendType(options.type)) {
    throw usageError(`unknown backend type '${options.type}'; expected one of ${BACKEND_TYPES.join(', ')}`);
  }
  if (options.apiKey !== undefined && options.apiKeyEnv !== undefined) throw usageError('give --api-key or --api-key-env, not both');
  if (options.cacheControl && options.type !== 'openai-chat') throw usageError(`--cache-control is for openai-chat backends only; ${cacheControlElsewhere(options.type)}`);
  if (options.websocket && options.type !== 'openai-responses') throw usageError(settingElsewhere('websocket', '--websocket'));
  checkTypeSettings(options);
  if (options.apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.apiKeyEnv)) {
    throw usageError(`--api-key-env must name an environment variable, got '${options.apiKeyEnv}'`);
  }
  const backend: BackendSettings = { type: options.type, baseUrl: baseUrlOf(options) };
  if (options.apiKey !== undefined) backend.apiKey = options.apiKey;
  if (options.apiKeyEnv !== undefined) backend.apiKeyEnv = options.apiKeyEnv;
  if (options.header?.length) backend.headers = Object.fromEntries(options.header.map(parseHeader));
  const timeouts: BackendTimeouts = {};
  if (options.connectTimeout !== undefined) timeouts.connectMs = parsePositiveInteger(options.connectTimeout, '--connect-timeout');
  if (options.firstByteTimeout !== undefined) timeouts.firstByteMs = parsePositiveInteger(options.firstByteTimeout, '--first-byte-timeout');
  if (options.idleTimeout !== undefined) timeouts.idleMs = parsePositiveInteger(options.idleTimeout, '--idle-timeout');
  if (options.totalTimeout !== undefined) timeouts.totalMs = parsePositiveInteger(options.totalTimeout, '--total-timeout');
  if (Object.keys(timeouts).length) backend.timeouts = timeouts;
  if (options.cacheControl) backend.cacheControl = true;
  if (options.auth !== undefined) backend.auth = options.auth as AnthropicAuth;
  if (options.anthropicVersion !== undefined) backend.anthropicVersion = options.anthropicVersion;
  if (options.apiVersion !== undefined) backend.apiVersion = options.apiVersion;
  if (options.profile !== undefined && isChatProfileName(options.profile)) backend.profile = options.profile;
  if (options.providerRouting !== undefined) backend.providerRouting = parseProviderRouting(options.providerRouting);
  if (options.project !== undefined) backend.project = options.project;
  if (options.region !== undefined) backend.region = options.region;
  if (options.credentials !== undefined) backend.credentials = path.resolve(options.credentials);
  if (options.awsProfile !== undefined) backend.awsProfile = options.awsProfile;
  if (options.websocket) backend.websocket = true;
  const config = await openConfig();
  const replaced = Object.hasOwn(config.read().backends, name);
  // A pool is set with `backends pool`; replacing the rest of the backend keeps it (config.json's own, which this rewrites).
  const stored = config.readStored().backends;
  const pool = Object.hasOwn(stored, name) ? stored[name]!.keyPool : undefined;
  config.update((settings) => {
    settings.backends[name] = pool ? { ...backend, keyPool: pool } : backend;
  });
  printLine(`${chalk.green('✓')} ${replaced ? 'Updated' : 'Added'} backend ${chalk.bold(name)} (${backend.type}, ${backend.baseUrl})${pool ? `; its pool of ${pool.keys.length} keys is kept` : ''}`);
  const bearerService = backend.type === 'anthropic' && backend.auth === undefined ? bearerServiceOf(backend.baseUrl) : undefined;
  if (bearerService) note(`${bearerService} takes its key as Authorization: Bearer; add --auth bearer to send it so (this backend sends x-api-key)`);
  const suggested = backend.type === 'openai-chat' ? suggestedChatProfile(backend.baseUrl) : undefined;
  if (suggested && backend.profile !== suggested) note(`${backend.baseUrl} looks like ${suggested}; add --profile ${suggested} for its own rules (reasoning sent back, refused fields left out)`);
  await warnIfServeLacks(name, backend.apiKeyEnv === undefined || pool ? [] : [backend.apiKeyEnv]);
}

/** A running serve takes the change at once, but reads the key from its own environment, not this shell's. */
async function warnIfServeLacks(name: string, variables: string[]): Promise<void> {
  const warning = serveLacksWarning((await configInForce()).serve, name, variables);
  if (warning) warn(warning);
}

/** The base URL given, or (vertex, bedrock) the endpoint of the region. */
function baseUrlOf(options: AddBackendOptions): string {
  if (options.baseUrl !== undefined) return parseHttpUrl(options.baseUrl, '--base-url');
  if (options.type === 'vertex' && options.region !== undefined) return defaultVertexBaseUrl(options.region);
  if (options.type !== 'bedrock') throw usageError("required option '--base-url <url>' not specified");
  if (options.region === undefined) throw usageError('a bedrock backend needs --region (or --base-url for an endpoint of its own)');
  return bedrockRuntimeUrl(options.region);
}

/** The settings only one type takes: on that type, in their form, and (Gemini) agreeing with the base URL. */
function checkTypeSettings(options: AddBackendOptions): void {
  if (options.auth !== undefined) {
    if (options.type !== 'anthropic') throw usageError(settingElsewhere('auth', '--auth'));
    if (!(ANTHROPIC_AUTHS as readonly string[]).includes(options.auth)) throw usageError(`--auth must be one of ${ANTHROPIC_AUTHS.join(', ')}, got '${options.auth}'`);
  }
  if (options.anthropicVersion !== undefined) {
    if (options.type !== 'anthropic') throw usageError(settingElsewhere('anthropicVersion', '--anthropic-version'));
    if (!ANTHROPIC_VERSION_FORMAT.test(options.anthropicVersion)) throw usageError(`--anthropic-version must be a date such as 2023-06-01, got '${options.anthropicVersion}'`);
  }
  if (options.profile !== undefined) {
    if (options.type !== 'openai-chat') throw usageError(settingElsewhere('profile', '--profile'));
    if (!isChatProfileName(options.profile)) throw usageError(`--profile must be one of ${CHAT_PROFILE_NAMES.join(', ')}, got '${options.profile}'`);
  }
  if (options.providerRouting !== undefined && options.profile !== 'openrouter') throw usageError(`--provider-routing: ${PROVIDER_ROUTING_ELSEWHERE}; add --profile openrouter`);
  checkVertexSettings(options);
  checkBedrockSettings(options);
  if (options.apiVersion !== undefined) {
    if (options.type !== 'gemini') throw usageError(settingElsewhere('apiVersion', '--api-version'));
    if (!GEMINI_API_VERSION_FORMAT.test(options.apiVersion)) throw usageError(`--api-version must be an API version such as v1beta or v1, got '${options.apiVersion}'`);
    const conflict = options.baseUrl === undefined ? undefined : apiVersionConflict(options.baseUrl, options.apiVersion);
    if (conflict) throw usageError(`--api-version: ${conflict}`);
  }
}

/** A vertex backend's project and region (both required, in the form the URL path takes) and its key file. */
function checkVertexSettings(options: AddBackendOptions): void {
  for (const [setting, option] of [['project', '--project'], ['region', '--region'], ['credentials', '--credentials']] as const) {
    if (options[setting] !== undefined && !settingFits(setting, options.type)) throw usageError(settingElsewhere(setting, option));
  }
  if (options.type !== 'vertex') return;
  if (options.project === undefined || options.region === undefined) throw usageError('a vertex backend needs --project and --region');
  if (!PROJECT_FORMAT.test(options.project)) throw usageError(`--project must be a Google Cloud project id, got '${options.project}'`);
  if (!REGION_FORMAT.test(options.region)) throw usageError(`--region must be a Vertex AI location such as us-east5 or global, got '${options.region}'`);
  if (options.credentials !== undefined && !fs.existsSync(options.credentials)) throw usageError(`--credentials: no file at ${options.credentials}`);
}

/** A bedrock backend's region (an AWS name) and the shared-files profile it signs with. */
function checkBedrockSettings(options: AddBackendOptions): void {
  if (options.awsProfile !== undefined && options.type !== 'bedrock') throw usageError(settingElsewhere('awsProfile', '--aws-profile'));
  if (options.type !== 'bedrock') return;
  if (options.region !== undefined && !AWS_REGION_FORMAT.test(options.region)) throw usageError(`--region must be an AWS region such as us-east-1, got '${options.region}'`);
  if (options.awsProfile !== undefined && !/^[\w.@+-]{1,64}$/.test(options.awsProfile)) throw usageError(`--aws-profile must name a profile of the shared AWS files, got '${options.awsProfile}'`);
}

/** OpenRouter's provider routing object, as JSON (https://openrouter.ai/docs/features/provider-routing). */
function parseProviderRouting(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(`--provider-routing must be a JSON object such as '{"order":["anthropic"],"allow_fallbacks":false}', got '${text}'`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw usageError(`--provider-routing must be a JSON object, got '${text}'`);
  return value as Record<string, unknown>;
}

function parseHeader(text: string): [string, string] {
  const equals = text.indexOf('=');
  const name = equals === -1 ? '' : text.slice(0, equals);
  if (!HEADER_NAME.test(name)) throw usageError(`--header must be NAME=VALUE, got '${text}'`);
  const value = text.slice(equals + 1);
  if (/[\r\n\0]/.test(value)) throw usageError(`--header ${name}: the value may not contain line breaks`);
  return [name.toLowerCase(), value];
}

/** How a backend's key is provided, never the key itself. */
const keySource = (backend: BackendSettings): string =>
  backend.keyPool?.keys.length
    ? `pool:${backend.keyPool.keys.length} ${backend.keyPool.strategy}`
    : backend.apiKey !== undefined
      ? 'stored'
      : backend.apiKeyEnv !== undefined
        ? `env:${backend.apiKeyEnv}`
        : backend.type === 'bedrock'
          ? 'aws-sigv4'
          : 'none';

export async function runBackendsList(options: { json?: boolean }): Promise<void> {
  const backends = (await openConfig()).read().backends;
  // Cloud credentials are read where the running serve reads them (its environment, as far as serve.json names it).
  const env = serveEnvironment((await configInForce()).serve);
  const rows = Object.entries(backends).map(([name, backend]) => {
    const cloud = cloudCredentials(backend, env);
    return { cloud: cloud ? describeCredentials(backend, cloud) : undefined, row: listRow(name, backend) };
  });
  if (options.json) return printJson(rows.map(({ cloud, row }) => ({ ...row, ...(cloud ? { cloud_credentials: cloud } : {}) })));
  if (rows.length === 0) return printLine('No backends configured; every SKU is served by the built-in offline backend.');
  // A backend that signs with cloud credentials shows them where a key would be: "none" would read as no credentials at all.
  printTable(rows.map(({ cloud, row }) => [row.name, row.type, row.base_url, cloud ?? row.api_key, row.headers.join(',')]), ['NAME', 'TYPE', 'BASE URL', 'KEY', 'HEADERS']);
}

/** A backend as `backends list --json` shows it (never its keys). */
function listRow(name: string, backend: BackendSettings) {
  return {
    name,
    type: backend.type,
    base_url: backend.baseUrl,
    api_key: keySource(backend),
    // Header values can hold credentials; list only their names.
    headers: Object.keys(backend.headers ?? {}),
    ...(backend.cacheControl ? { cache_control: true } : {}),
    ...(backend.auth ? { auth: backend.auth } : {}),
    ...(backend.anthropicVersion ? { anthropic_version: backend.anthropicVersion } : {}),
    ...(backend.apiVersion ? { api_version: backend.apiVersion } : {}),
    ...(backend.profile ? { profile: backend.profile } : {}),
    ...(backend.project ? { project: backend.project } : {}),
    ...(backend.region ? { region: backend.region } : {}),
    // The key file's path only; its contents are never read here.
    ...(backend.type === 'vertex' ? { credentials: backend.credentials ?? (process.env.GOOGLE_APPLICATION_CREDENTIALS ? 'env:GOOGLE_APPLICATION_CREDENTIALS' : 'metadata server') } : {}),
    ...(backend.providerRouting ? { provider_routing: backend.providerRouting } : {}),
    ...(backend.awsProfile ? { aws_profile: backend.awsProfile } : {}),
    ...(backend.websocket ? { websocket: true } : {}),
  };
}

export async function runBackendsRemove(name: string): Promise<void> {
  const config = await openConfig();
  const settings = config.read();
  requireBackend(config, name);
  const usesIt = (targets: string[]) => targets.some((target) => parseTarget(target).backend === name);
  const users = Object.entries(settings.routes).filter(([model, targets]) => usesIt(targets) || (settings.routePolicies[model]?.rules ?? []).some((rule) => usesIt(rule.targets)));
  if (users.length) {
    throw failedError(`backend '${name}' is used by route ${users.map(([model]) => model).join(', ')}; change or unset those routes first`);
  }
  config.update((draft) => {
    delete draft.backends[name];
  });
  printLine(`${chalk.green('✓')} Removed backend ${chalk.bold(name)}`);
}

/** The backend a command acts on must exist (exit 1 when it does not). */
export interface PoolOptions {
  key?: string[];
  keyEnv?: string[];
  strategy?: string;
  rateLimitCooldown?: string;
  paymentCooldown?: string;
  clear?: boolean;
}

/** A backend of config.json by that name, or exit 1 naming the nearest one (or the file in force that has it). */
function requireBackend(config: ConfigStore, name: string): void {
  requireStored(config, 'backends', name, `no backend named '${name}'${didYouMean(name, Object.keys(config.read().backends))} (see svc-router backends list)`);
}

/** Gives a backend a pool of keys (replacing any it had), or with --clear takes it away. */
export async function runBackendsPool(name: string, options: PoolOptions): Promise<void> {
  const config = await openConfig();
  if (options.clear) {
    requireBackend(config, name);
    const own = config.update((settings) => {
      delete settings.backends[name]!.keyPool;
    }).backends[name];
    printLine(`${chalk.green('✓')} Backend ${chalk.bold(name)} uses its own key again (no pool)`);
    await warnIfServeLacks(name, own?.apiKey === undefined && own?.apiKeyEnv !== undefined ? [own.apiKeyEnv] : []);
    return;
  }
  const strategy = options.strategy ?? 'round-robin';
  if (!(KEY_POOL_STRATEGIES as readonly string[]).includes(strategy)) throw usageError(`--strategy must be one of ${KEY_POOL_STRATEGIES.join(', ')}, got '${strategy}'`);
  for (const variable of options.keyEnv ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) throw usageError(`--key-env must name an environment variable, got '${variable}'`);
  }
  const keys: PooledKey[] = [...(options.key ?? []).map((apiKey) => ({ apiKey })), ...(options.keyEnv ?? []).map((apiKeyEnv) => ({ apiKeyEnv }))];
  if (keys.length < 2) throw usageError('a pool needs at least two keys: give --key and/or --key-env, each repeatable');
  const pool: KeyPoolSettings = { strategy: strategy as KeyPoolStrategy, keys };
  if (options.rateLimitCooldown !== undefined) pool.rateLimitCooldownMs = parsePositiveInteger(options.rateLimitCooldown, '--rate-limit-cooldown');
  if (options.paymentCooldown !== undefined) pool.paymentCooldownMs = parsePositiveInteger(options.paymentCooldown, '--payment-cooldown');
  requireBackend(config, name);
  config.update((settings) => {
    settings.backends[name]!.keyPool = pool;
  });
  printLine(`${chalk.green('✓')} Backend ${chalk.bold(name)} now uses a pool of ${keys.length} keys, ${strategy}`);
  await warnIfServeLacks(name, options.keyEnv ?? []);
}
