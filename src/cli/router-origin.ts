import type { Settings } from '../config/settings.js';
import { schemeOf } from './tls-files.js';

/** An address clients can dial: a wildcard bind is reached on loopback, IPv6 goes in brackets. */
export function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** The configured address: https when `server.tls` is set, a wildcard bind reached on loopback. */
export const configuredOrigin = (settings: Settings): string => `${schemeOf(settings.server)}://${hostForUrl(settings.server.host)}:${settings.server.port}`;
