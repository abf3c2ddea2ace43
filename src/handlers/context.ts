import type { Settings } from '../config/settings.js';
import type { RequestPhases } from '../core/request-phases.js';
import type { Identity } from '../identity/identity.js';
import type { Session } from '../routing/session-key.js';
import type { ApiRequest } from './api.js';
import type { App } from './app.js';

/** One authenticated request on its way through a handler. */
export interface RequestContext {
  app: App;
  request: ApiRequest;
  identity: Identity;
  /** The settings in force for this whole request, read once when it arrived. */
  settings: Settings;
  requestId: string;
  /** performance.now() when the request arrived. */
  startedAt: number;
  /** The router's time per phase (x-svc-overhead-ms, and the metrics' overhead histogram). */
  phases: RequestPhases;
  /** The values of the route's `{name}` path segments. */
  params?: Readonly<Record<string, string>>;
  /** The session the request names, once routing has asked (null: it names none); see request-session.ts. */
  session?: Session | null;
}
