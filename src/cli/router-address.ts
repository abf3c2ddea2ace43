import type { Settings } from '../config/settings.js';
import { originOf } from './client-settings.js';
import { configuredOrigin } from './router-origin.js';
import { runningServe, type ServerState } from './server-state.js';

/** Where an address came from, most specific first. */
export type AddressSource = 'flag' | 'env' | 'serve' | 'config';

export interface RouterAddress {
  /** http://HOST:PORT, without /v1 or a trailing slash. */
  origin: string;
  source: AddressSource;
  /** The running serve, when its state file named the address (or names the same one). */
  serve?: ServerState;
}

/**
 * The router other commands talk about: a given URL (flag, then SVC_ROUTER_BASE_URL when the
 * command reads it), else the address the running `serve` wrote to its state file (so
 * `serve --port 9123` is what `env`, `connect` and `doctor` name), else the configured one.
 */
export function routerAddress(settings: Settings, given: { flag?: string; env?: string } = {}): RouterAddress {
  const serve = runningServe();
  if (given.flag) return withServe({ origin: originOf(given.flag), source: 'flag' }, serve);
  if (given.env) return withServe({ origin: originOf(given.env), source: 'env' }, serve);
  if (serve) return { origin: originOf(serve.url), source: 'serve', serve };
  return { origin: configuredOrigin(settings), source: 'config' };
}

const withServe = (address: RouterAddress, serve: ServerState | undefined): RouterAddress =>
  serve && originOf(serve.url) === address.origin ? { ...address, serve } : address;

