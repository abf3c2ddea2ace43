/**
 * Between the stored settings and a declarative file: the settings in force when a file is in use,
 * and the file that `config export` writes from the stored settings.
 */

import { CREDENTIAL_HEADER_NAME, redactText } from '../../core/redact.js';
import { hashKey } from '../../core/router-keys.js';
import type { BackendSettings, Settings } from '../settings.js';
import { CREDENTIAL_HEADERS, SETTINGS_PLACEMENT, type Placement } from './placement.js';
import type { DeclarativeConfig } from './schema.js';

/**
 * The file's tables replace the stored ones (backends, routes, keys: a router sharing the file must
 * not keep a backend or key only it has); its groups (server, usage, defaults) override the stored
 * fields one by one. Local settings stay this machine's; a secret the file names by variable comes
 * from that variable when it is set here.
 */
export function applyDeclarative(stored: Settings, file: DeclarativeConfig, env: NodeJS.ProcessEnv = process.env): Settings {
  const settings: Record<string, unknown> = { ...stored };
  const given = file as Record<string, unknown>;
  for (const [field, placement] of Object.entries(SETTINGS_PLACEMENT) as Array<[string, Placement]>) {
    if (typeof placement === 'object') {
      const variable = given[placement.env];
      const value = typeof variable === 'string' ? env[variable] : undefined;
      if (value) settings[field] = value;
    } else if (placement !== 'local' && given[field] !== undefined) {
      settings[field] = placement === 'group' ? { ...(settings[field] as object), ...structuredClone(given[field] as object) } : structuredClone(given[field]);
    }
  }
  return withLocalKeyRecord(stored, settings as unknown as Settings);
}

/**
 * A file with its own keys keeps this machine's local key working: the CLI and the banner use it,
 * and it was issued here, not by the team. A slug the file lists wins over it.
 */
function withLocalKeyRecord(stored: Settings, settings: Settings): Settings {
  if (!stored.localKey || settings.keys === stored.keys) return settings;
  const hash = hashKey(stored.localKey);
  const local = Object.entries(stored.keys).find(([, record]) => record.hash === hash);
  if (!local || Object.hasOwn(settings.keys, local[0])) return settings;
  return { ...settings, keys: Object.assign(Object.create(null) as Settings['keys'], settings.keys, { [local[0]]: local[1] }) };
}

export interface ExportOptions {
  /** Include issued keys' records (hashes, never keys). */
  withKeys?: boolean;
  /** The `$schema` reference written at the top. */
  schemaRef?: string;
}

export interface Export {
  config: DeclarativeConfig;
  /** What the file does not carry, or carries differently, said to the user rather than dropped quietly. */
  notes: string[];
}

/** Where a repository that installs svc-router finds the schema, relative to a file at its root (`config export` checks it exists). */
export const DEFAULT_SCHEMA_REF = './node_modules/svc-router/schema/svc-router.schema.json';

export function exportDeclarative(settings: Settings, options: ExportOptions = {}): Export {
  const notes: string[] = [];
  const backends: NonNullable<DeclarativeConfig['backends']> = {};
  for (const [name, backend] of Object.entries(settings.backends)) backends[name] = exportBackend(name, backend, notes);
  if (settings.localKey) notes.push('the local key is not exported: it stays in this machine\'s config.json');
  if (settings.secret) notes.push('the sealing secret is not exported: routers sharing this file set "sealingSecretEnv" to a variable holding one shared secret');
  const keyCount = Object.keys(settings.keys).length;
  if (keyCount && !options.withKeys) notes.push(`${keyCount} issued key record(s) not exported (add --with-keys to share their hashes with other routers)`);
  const config: Record<string, unknown> = { $schema: options.schemaRef ?? DEFAULT_SCHEMA_REF };
  for (const [field, placement] of Object.entries(SETTINGS_PLACEMENT) as Array<[keyof Settings, Placement]>) {
    if (placement === 'local' || typeof placement === 'object' || settings[field] === undefined) continue;
    // Spread first: the stored tables have no prototype, and a plain object prints the same.
    const value = settings[field];
    config[field] = typeof value === 'object' && !Array.isArray(value) ? structuredClone({ ...value }) : structuredClone(value);
  }
  config.backends = backends;
  if (!options.withKeys) delete config.keys;
  config.notify = exportNotify(settings.notify, notes);
  return { config: config as DeclarativeConfig, notes };
}

/** The webhook URL may hold a token: the file names a variable for it, as for a backend's key. */
function exportNotify(notify: Settings['notify'] | undefined, notes: string[]): DeclarativeConfig['notify'] {
  const { webhook, ...rest } = structuredClone({ ...notify });
  if (webhook === undefined || rest.webhookEnv !== undefined) return rest;
  notes.push(`notify.webhook is stored, and not exported (its URL may hold a token): the file reads it from $${WEBHOOK_VARIABLE}; set that variable where the router runs`);
  return { ...rest, webhookEnv: WEBHOOK_VARIABLE };
}

const WEBHOOK_VARIABLE = 'SVC_ROUTER_NOTIFY_WEBHOOK';

function exportBackend(name: string, backend: BackendSettings, notes: string[]): NonNullable<DeclarativeConfig['backends']>[string] {
  const { apiKey, headers, keyPool, ...rest } = structuredClone(backend);
  if (keyPool) {
    // Pooled keys travel by variable, as a backend's own key does.
    const keys = keyPool.keys.map((key, index) => {
      if ('apiKeyEnv' in key) return { apiKeyEnv: key.apiKeyEnv };
      const variable = `${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_POOL_KEY_${index + 1}`;
      notes.push(`backend "${name}": pooled key ${index + 1} is stored, and not exported: the file reads it from $${variable}; set that variable where the router runs`);
      return { apiKeyEnv: /^[A-Z_]/.test(variable) ? variable : `KEY_${variable}` };
    });
    Object.assign(rest, { keyPool: { ...keyPool, keys } });
  }
  const shared = Object.entries(headers ?? {}).filter(([header, value]) => {
    const secret = CREDENTIAL_HEADERS.has(header.toLowerCase()) || CREDENTIAL_HEADER_NAME.test(header) || redactText(value) !== value;
    if (secret) notes.push(`backend "${name}": header "${header}" holds a credential and is not exported; give the key through apiKeyEnv`);
    return !secret;
  });
  if (headers !== undefined) Object.assign(rest, { headers: Object.fromEntries(shared) });
  if (apiKey === undefined || rest.apiKeyEnv !== undefined) return rest;
  const variable = `${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_API_KEY`;
  notes.push(`backend "${name}" has a stored key, which is not exported: the file reads it from $${variable}; set that variable where the router runs`);
  return { ...rest, apiKeyEnv: /^[A-Z_]/.test(variable) ? variable : `KEY_${variable}` };
}
