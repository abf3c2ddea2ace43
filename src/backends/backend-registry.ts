import { BACKEND_TYPES, isBackendType } from '../core/backend-types.js';
import { RouterError } from '../core/errors.js';
import type { BackendSettings, Settings } from '../config/settings.js';
import { OFFLINE_BACKEND } from '../core/target.js';
import type { Backend, BackendModule } from './backend.js';
import { createOfflineBackend } from './offline/offline-backend.js';
import type { ScriptedTurn } from './offline/script.js';
import { BACKENDS } from './registry.js';

/**
 * Finds the backend a target names, from the settings in force for this request. Instances are
 * reused until their settings change, so a config edit takes effect on the next request.
 */
export class BackendRegistry {
  private readonly offline: Backend;
  private readonly built = new Map<string, { settings: BackendSettings; backend: Backend }>();
  /** Each type's `createBackend`, once its module has loaded. */
  private readonly factories = new Map<string, BackendModule['createBackend']>();
  private readonly wrap: (backend: Backend) => Backend;

  /**
   * `wrap` sees each backend once, when it is built, and what it returns is what `get` hands out
   * (metrics wrap each backend to count its failures).
   */
  constructor(options: { offlineScript?: ScriptedTurn[]; wrap?: (backend: Backend) => Backend } = {}) {
    this.wrap = options.wrap ?? ((backend) => backend);
    this.offline = this.wrap(createOfflineBackend(options.offlineScript));
  }

  /**
   * The backend itself once built (every request after the first), a promise of it only while its
   * type's module loads: the hot path takes no extra turn of the event loop.
   */
  get(name: string, settings: Settings): Backend | Promise<Backend> {
    if (name === OFFLINE_BACKEND) return this.offline;
    const configured = settings.backends[name];
    if (!configured) throw new RouterError(502, 'upstream', `The route names a backend '${name}' that is not configured.`);
    const cached = this.built.get(name);
    if (cached && cached.settings === configured) return cached.backend;
    // The type comes from a config file a person may have edited: only the table's own entries count.
    const load = isBackendType(configured.type) ? BACKENDS[configured.type].load : undefined;
    if (!load) throw new RouterError(502, 'upstream', `Backend '${name}' has an unknown type '${String(configured.type)}'; use one of ${BACKEND_TYPES.join(', ')}.`);
    const create = this.factories.get(configured.type);
    if (create) return this.build(name, configured, create);
    return load().then((module) => {
      this.factories.set(configured.type, module.createBackend);
      return this.build(name, configured, module.createBackend);
    });
  }

  private build(name: string, configured: BackendSettings, create: BackendModule['createBackend']): Backend {
    const backend = this.wrap(create(name, configured));
    this.built.set(name, { settings: configured, backend });
    return backend;
  }
}
