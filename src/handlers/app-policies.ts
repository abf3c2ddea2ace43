import type { Policy } from '../policies/policy.js';
import { POLICIES } from '../policies/registry.js';
import type { App } from './app.js';

/**
 * The policies a request passes: the app's own when it was given some (a test's), else the
 * registry's. Read here, not in app.ts, so only the handlers that admit requests load them.
 */
export const policiesOf = (app: Pick<App, 'policies'>): readonly Policy[] => app.policies ?? POLICIES;
