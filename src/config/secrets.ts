import { CREDENTIAL_HEADER_NAME } from '../core/redact.js';
import type { Settings } from './settings.js';

/**
 * Every secret the settings in force hold or point at: the CLI's own key, the sealing secret, the
 * notice webhook's URL, each
 * backend's key (stored, or the value of its environment variable), every pooled key, and the
 * values of headers named as credentials. Logs are scrubbed of them whether or not a request has
 * sent them yet. Worked out once per settings snapshot (a new one whenever the config changes).
 */
export function configuredSecrets(settings: Settings): readonly string[] {
  let secrets = known.get(settings);
  if (!secrets) known.set(settings, (secrets = collect(settings)));
  return secrets;
}

const known = new WeakMap<Settings, readonly string[]>();

function collect(settings: Settings): string[] {
  const secrets = new Set<string>();
  const add = (value: string | undefined) => {
    if (typeof value === 'string' && value !== '') secrets.add(value);
  };
  add(settings.localKey);
  add(settings.secret);
  // A webhook's URL may hold a token (a chat webhook's path does).
  add(settings.notify?.webhook);
  if (settings.notify?.webhookEnv !== undefined) add(process.env[settings.notify.webhookEnv]);
  for (const backend of Object.values(settings.backends)) {
    add(backend.apiKey);
    if (backend.apiKeyEnv !== undefined) add(process.env[backend.apiKeyEnv]);
    for (const key of backend.keyPool?.keys ?? []) add('apiKey' in key ? key.apiKey : process.env[key.apiKeyEnv]);
    for (const [header, value] of Object.entries(backend.headers ?? {})) {
      if (!CREDENTIAL_HEADER_NAME.test(header) || typeof value !== 'string') continue;
      add(value);
      add(value.replace(/^(Bearer|Basic|Token)\s+/i, ''));
    }
  }
  return [...secrets];
}
