import type { Settings } from '../config/settings.js';
import { hostForUrl } from './commands/env.js';
import { schemeOf } from './tls-files.js';

/** The configured address: https when `server.tls` is set, a wildcard bind reached on loopback. */
export const configuredOrigin = (settings: Settings): string => `${schemeOf(settings.server)}://${hostForUrl(settings.server.host)}:${settings.server.port}`;
