import { RouterError } from '../core/errors.js';
import type { BackendSettings, Settings } from '../config/settings.js';
import { OFFLINE_BACKEND } from '../routing/skus.js';
import { anthropicBackend } from './anthropic/anthropic-backend.js';
import type { Backend, BackendDescriptor } from './backend.js';
import { geminiBackend } from './gemini/gemini-backend.js';
import { createOfflineBackend } from './offline/offline-backend.js';
import type { ScriptedTurn } from './offline/script.js';
import { openaiChatBackend } from './openai-chat/openai-chat-backend.js';
import { openaiResponsesBackend } from './openai-responses/openai-responses-backend.js';

/**
 * Every backend type a config may name, in the order help and completions list them. Adding a
 * type is one folder that exports a BackendDescriptor, and one line here; the `BackendType` union,
 * settings validation, `backends add --type`, the completion scripts and the README derive from it.
 */
export const BACKENDS = [openaiChatBackend, openaiResponsesBackend, anthropicBackend, geminiBackend] as const satisfies readonly BackendDescriptor[];

export type BackendType = (typeof BACKENDS)[number]['type'];

export const BACKEND_TYPES: readonly BackendType[] = BACKENDS.map((backend) => backend.type);

/** Keyed by type for lookups; a type read from a config file is looked up as an own entry only. */
const FACTORIES: Readonly<Record<string, BackendDescriptor['create']>> = Object.fromEntries(BACKENDS.map((backend) => [backend.type, backend.create]));

/** Whether a string (from a config file or the command line) names a backend type. */
export const isBackendType = (type: unknown): type is BackendType => typeof type === 'string' && Object.hasOwn(FACTORIES, type);

/**
 * Finds the backend a target names, from the settings in force for this request. Instances are
 * reused until their settings change, so a config edit takes effect on the next request.
 */
export class BackendRegistry {
  private readonly offline: Backend;
  private readonly built = new Map<string, { settings: BackendSettings; backend: Backend }>();
  private readonly wrap: (backend: Backend) => Backend;

  /**
   * `wrap` sees each backend once, when it is built, and what it returns is what `get` hands out
   * (metrics wrap each backend to count its failures).
   */
  constructor(options: { offlineScript?: ScriptedTurn[]; wrap?: (backend: Backend) => Backend } = {}) {
    this.wrap = options.wrap ?? ((backend) => backend);
    this.offline = this.wrap(createOfflineBackend(options.offlineScript));
  }

  get(name: string, settings: Settings): Backend {
    if (name === OFFLINE_BACKEND) return this.offline;
    const configured = settings.backends[name];
    if (!configured) throw new RouterError(502, 'upstream', `The route names a backend '${name}' that is not configured.`);
    const cached = this.built.get(name);
    if (cached && cached.settings === configured) return cached.backend;
    // The type comes from a config file a person may have edited: only the table's own entries count.
    const create = isBackendType(configured.type) ? FACTORIES[configured.type] : undefined;
    if (!create) throw new RouterError(502, 'upstream', `Backend '${name}' has an unknown type '${String(configured.type)}'; use one of ${BACKEND_TYPES.join(', ')}.`);
    const backend = this.wrap(create(name, configured));
    this.built.set(name, { settings: configured, backend });
    return backend;
  }
}
