import { RouterError } from '../../core/errors.js';
import type { BackendSettings } from '../../config/settings.js';

/** The backend's key from its settings or its environment variable, read at call time. */
export function resolveApiKey(name: string, settings: BackendSettings): string | undefined {
  if (settings.apiKey !== undefined) return settings.apiKey;
  if (settings.apiKeyEnv === undefined) return undefined;
  const value = process.env[settings.apiKeyEnv];
  if (!value) throw new RouterError(502, 'upstream', `Backend '${name}' takes its key from $${settings.apiKeyEnv}, which is not set where svc-router runs.`);
  return value;
}
