import { RouterError } from '../core/errors.js';
import type { Settings } from '../config/settings.js';
import { OFFLINE_BACKEND } from '../routing/skus.js';
import type { Backend } from './backend.js';
import { createOfflineBackend } from './offline/offline-backend.js';
import type { ScriptedTurn } from './offline/script.js';

/** Finds the backend a target names, from the settings in force for this request. */
export class BackendRegistry {
  private readonly offline: Backend;

  constructor(options: { offlineScript?: ScriptedTurn[] } = {}) {
    this.offline = createOfflineBackend(options.offlineScript);
  }

  get(name: string, settings: Settings): Backend {
    if (name === OFFLINE_BACKEND) return this.offline;
    const configured = settings.backends[name];
    if (!configured) {
      throw new RouterError(502, 'upstream', `The route names a backend '${name}' that is not configured.`);
    }
    throw new RouterError(501, 'upstream', `Backend type '${configured.type}' (backend '${name}') is not supported by this build yet.`);
  }
}
