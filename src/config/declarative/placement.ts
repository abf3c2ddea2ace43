/**
 * Where each stored setting lives once a declarative file is in use. Typed over every key of
 * Settings and BackendSettings, so a field added there does not compile until it is placed here;
 * a test then checks that each field placed in the file is in the schema, and the JSON Schema
 * committed in schema/ equals the one generated.
 */

import type { BackendSettings, Settings } from '../settings.js';
import type { DeclarativeConfig } from './schema.js';

/**
 * `table`: a name-keyed table the file replaces as a whole when it has one (a router sharing the
 * file keeps no entry of its own); `group`: fields the file overrides one by one; `file`: a value
 * written as it is; `local`: this machine's own, never in the file; `{ env }`: a secret the file
 * names by its environment variable.
 */
export type Placement = 'table' | 'group' | 'file' | 'local' | { env: string };

export const SETTINGS_PLACEMENT = {
  localKey: 'local',
  secret: { env: 'sealingSecretEnv' },
  keys: 'table',
  backends: 'table',
  routes: 'table',
  routePolicies: 'table',
  routing: 'group',
  contextWindows: 'table',
  server: 'group',
  limits: 'group',
  guardrails: 'group',
  notify: 'group',
  safeguards: 'group',
  usage: 'group',
  prices: 'table',
  defaults: 'group',
} as const satisfies { [K in keyof Settings]-?: Placement };

/** Header names that carry credentials: never in the file, whatever their value (apiKeyEnv instead). */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'cookie']);

export const BACKEND_PLACEMENT = {
  type: 'file',
  baseUrl: 'file',
  apiKey: { env: 'apiKeyEnv' },
  apiKeyEnv: 'file',
  headers: 'file',
  timeouts: 'file',
  keyPool: 'file',
  cacheControl: 'file',
  auth: 'file',
  anthropicVersion: 'file',
  apiVersion: 'file',
  project: 'file',
  region: 'file',
  credentials: 'file',
  profile: 'file',
  providerRouting: 'file',
  awsProfile: 'file',
  websocket: 'file',
} as const satisfies { [K in keyof BackendSettings]-?: Placement };

type FileKeys<Table> = { [K in keyof Table]: Table[K] extends 'table' | 'group' | 'file' ? K : Table[K] extends { env: infer E } ? E : never }[keyof Table];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <T extends true>(): T => true as T;

// The file's fields are exactly the placed ones, at the top and in a backend (the compiler checks).
same<Same<Exclude<keyof DeclarativeConfig, '$schema'>, FileKeys<typeof SETTINGS_PLACEMENT>>>();
same<Same<keyof NonNullable<DeclarativeConfig['backends']>[string], FileKeys<typeof BACKEND_PLACEMENT>>>();
// Every group has each of its settings' fields, every table entry each of its record's fields.
type In<Field extends keyof DeclarativeConfig> = NonNullable<DeclarativeConfig[Field]>;
same<Same<keyof In<'server'>, keyof Settings['server']>>();
same<Same<keyof In<'usage'>, keyof Settings['usage']>>();
same<Same<keyof In<'defaults'>, keyof Settings['defaults']>>();
same<Same<keyof In<'limits'>, keyof Settings['limits']>>();
same<Same<keyof In<'routing'>, keyof Settings['routing']>>();
same<Same<keyof In<'guardrails'>, keyof Settings['guardrails']>>();
same<Same<keyof In<'notify'>, keyof Settings['notify']>>();
same<Same<keyof NonNullable<In<'limits'>['session']>, keyof NonNullable<Settings['limits']['session']>>>();
same<Same<keyof In<'safeguards'>, keyof Settings['safeguards']>>();
same<Same<keyof In<'keys'>[string], keyof Settings['keys'][string]>>();
same<Same<keyof In<'prices'>[string], keyof Settings['prices'][string]>>();
same<Same<keyof NonNullable<In<'prices'>[string]['longContext']>, keyof NonNullable<Settings['prices'][string]['longContext']>>>();
same<Same<keyof NonNullable<In<'backends'>[string]['timeouts']>, keyof NonNullable<BackendSettings['timeouts']>>>();
same<Same<keyof NonNullable<In<'server'>['tls']>, keyof NonNullable<Settings['server']['tls']>>>();
// A value the file holds is a value the settings accept.
same<Same<In<'routes'>, Settings['routes']>>();
const _pricesFit = (prices: In<'prices'>): Settings['prices'] => prices;
void _pricesFit;
const _backendFits = (backend: NonNullable<DeclarativeConfig['backends']>[string]): BackendSettings => backend;
const _keysFit = (keys: NonNullable<DeclarativeConfig['keys']>): Settings['keys'] => keys;
const _serverFits = (server: Required<NonNullable<DeclarativeConfig['server']>>): Settings['server'] => server;
void _backendFits;
void _keysFit;
void _serverFits;
