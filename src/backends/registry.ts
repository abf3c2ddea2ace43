import { RouterError } from '../core/errors.js';
import type { BackendSettings, BackendType, Settings } from '../config/settings.js';
import { OFFLINE_BACKEND } from '../routing/skus.js';
import { createAnthropicBackend } from './anthropic/anthropic-backend.js';
import type { Backend } from './backend.js';
import { createOfflineBackend } from './offline/offline-backend.js';
import type { ScriptedTurn } from './offline/script.js';
import { createOpenAIChatBackend } from './openai-chat/openai-chat-backend.js';
import { createOpenAIResponsesBackend } from './openai-responses/openai-responses-backend.js';

const FACTORIES: Record<BackendType, (name: string, settings: BackendSettings) => Backend> = {
  'openai-chat': createOpenAIChatBackend,
  anthropic: createAnthropicBackend,
  'openai-responses': createOpenAIResponsesBackend,
};

/**
 * Finds the backend a target names, from the settings in force for this request. Instances are
 * reused until their settings change, so a config edit takes effect on the next request.
 */
export class BackendRegistry {
  private readonly offline: Backend;
  private readonly built = new Map<string, { settings: BackendSettings; backend: Backend }>();

  constructor(options: { offlineScript?: ScriptedTurn[] } = {}) {
    this.offline = createOfflineBackend(options.offlineScript);
  }

  get(name: string, settings: Settings): Backend {
    if (name === OFFLINE_BACKEND) return this.offline;
    const configured = settings.backends[name];
    if (!configured) throw new RouterError(502, 'upstream', `The route names a backend '${name}' that is not configured.`);
    const cached = this.built.get(name);
    if (cached && cached.settings === configured) return cached.backend;
    // The type comes from a config file a person may have edited: only the table's own entries count.
    const create = Object.hasOwn(FACTORIES, configured.type) ? FACTORIES[configured.type] : undefined;
    if (!create) throw new RouterError(502, 'upstream', `Backend '${name}' has an unknown type '${String(configured.type)}'; use one of ${Object.keys(FACTORIES).join(', ')}.`);
    const backend = create(name, configured);
    this.built.set(name, { settings: configured, backend });
    return backend;
  }
}
