import { RouterError } from '../../core/errors.js';
import type { BackendSettings } from '../../config/settings.js';

/** The backend's key from its settings or its environment variable, read at call time. */
export function resolveApiKey(name: string, settings: BackendSettings): string | undefined {
  if (settings.apiKey !== undefined) return settings.apiKey;
  // A pooled backend's calls carry the key the pool picked; this is only for callers that pick none.
  if (settings.apiKeyEnv === undefined && settings.keyPool) return pooledKeys(settings)[0];
  if (settings.apiKeyEnv === undefined) return undefined;
  const value = process.env[settings.apiKeyEnv];
  if (!value) throw new RouterError(502, 'configuration', `Backend '${name}' takes its key from $${settings.apiKeyEnv}, which is not set where svc-router runs.`, undefined, 'upstream_no_key');
  return value;
}

/** Every key of the backend's pool that has a value now (stored, or set in its environment variable). */
export function pooledKeys(settings: BackendSettings): string[] {
  return (settings.keyPool?.keys ?? []).flatMap((key) => {
    const value = 'apiKey' in key ? key.apiKey : process.env[key.apiKeyEnv];
    return typeof value === 'string' && value !== '' ? [value] : [];
  });
}
