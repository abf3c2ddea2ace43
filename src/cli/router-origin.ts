import type { Settings } from '../config/settings.js';
import { originOf } from './client-settings.js';
import { hostForUrl } from './commands/env.js';
import { findServer } from './server-state.js';
import { schemeOf } from './tls-files.js';

/**
 * The origin clients dial when none is given: the running `serve`'s own (its state file has the
 * scheme, host and port it really took, https when it serves TLS), else the configured one.
 */
export function defaultRouterOrigin(settings: Settings): string {
  const found = findServer();
  return found.status === 'running' ? originOf(found.state.url) : configuredOrigin(settings);
}

/** The configured address: https when `server.tls` is set, a wildcard bind reached on loopback. */
export const configuredOrigin = (settings: Settings): string => `${schemeOf(settings.server)}://${hostForUrl(settings.server.host)}:${settings.server.port}`;
