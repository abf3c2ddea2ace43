import type { AddressInfo } from 'node:net';
import { RouterError } from '../core/errors.js';
import { isLoopbackName, isWildcardAddress, parseHost, parseHostName, parseOrigin } from '../core/host-names.js';

/**
 * The dashboard, `/admin/*` and `/metrics` hold data for whoever runs the router, not for API
 * clients. A page on any web site whose name resolves to this machine (DNS rebinding) is, to the
 * browser, same-origin with whatever answers there, so it could read them; its requests carry its
 * own name in `Host`. These paths therefore answer only to a `Host` that names the address served:
 *
 * - bound to loopback, or to every interface (0.0.0.0, ::): the loopback names (localhost,
 *   127.0.0.0/8, [::1]), any port;
 * - bound to one other address: that address;
 * - and always the names configured in `server.hosts` (a reverse proxy's, a team's DNS name).
 *
 * The model endpoints stay reachable whatever the Host: API clients send any, and they need a key.
 */
export function isGuardedPath(path: string): boolean {
  return path === '/ui' || path.startsWith('/ui/') || path === '/admin' || path.startsWith('/admin/') || path === '/metrics' || path === '/metrics/';
}

/** Requests that only read: every other method on a guarded path is held to its `Origin` too. */
const READS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

export class HostGuard {
  private address: string | undefined;
  private configuredFrom: readonly string[] | undefined;
  private configured: ReadonlySet<string> = new Set();

  /**
   * @param hosts the configured names (`server.hosts`), read at each check so a change applies at once.
   * @param scheme what the server speaks: a page it serves has this scheme in its origin.
   */
  constructor(
    private readonly hosts: () => readonly string[] | undefined,
    private readonly scheme: 'http:' | 'https:' = 'http:',
  ) {}

  /** Told the address the server bound, once it listens (a pipe's path counts as loopback). */
  listening(address: AddressInfo | string | null): void {
    this.address = address !== null && typeof address === 'object' ? address.address : undefined;
  }

  /** Whether a name (as parseHost gives it) is one this router answers to on its guarded paths. */
  allows(name: string): boolean {
    if (this.configuredNames().has(name)) return true;
    const bound = this.address;
    if (bound === undefined || isWildcardAddress(bound)) return isLoopbackName(name);
    const boundName = parseHostName(bound);
    if (boundName !== undefined && isLoopbackName(boundName)) return isLoopbackName(name);
    return name === boundName;
  }

  /**
   * Why a request to a guarded path is refused, or undefined when it may go on: a `Host` that names
   * another site, or (for a request that changes something) an `Origin` other than the page's own.
   * A request without `Origin` is not a browser's cross-site one; browsers send it on every POST.
   */
  refusal(method: string, host: string | undefined, origin: string | undefined): RouterError | undefined {
    const parsed = host === undefined ? undefined : parseHost(host);
    if (parsed === undefined || !this.allows(parsed.name)) {
      return new RouterError(
        403,
        'permission',
        "The dashboard, /admin and /metrics answer only to this router's own names: the loopback names, the address it binds, and those in config server.hosts. This request's Host names another; if it is this router's, add it: svc-router config set server.hosts NAME[,NAME…].",
        undefined,
        'host_not_allowed',
      );
    }
    if (READS.has(method) || origin === undefined) return undefined;
    if (!sameOrigin(origin, this.scheme, parsed)) {
      return new RouterError(403, 'permission', 'This request changes something, and came from a page of another origin: only pages the router serves may send it.', undefined, 'origin_not_allowed');
    }
    return undefined;
  }

  private configuredNames(): ReadonlySet<string> {
    const hosts = this.hosts();
    if (hosts !== this.configuredFrom) {
      this.configuredFrom = hosts;
      this.configured = new Set(configuredHostNames(hosts));
    }
    return this.configured;
  }
}

/** The names a `server.hosts` list gives, each in parseHost's spelling; an entry that is not a host name is skipped. */
function configuredHostNames(hosts: readonly unknown[] | undefined): string[] {
  if (!Array.isArray(hosts)) return [];
  return hosts.flatMap((entry) => {
    const name = typeof entry === 'string' ? parseHostName(entry) : undefined;
    return name === undefined ? [] : [name];
  });
}

/** Whether an `Origin` is the origin of a page this server served to the request's `Host`: same scheme, name and port (the scheme's default when left out). */
function sameOrigin(origin: string, scheme: 'http:' | 'https:', host: { name: string; port?: number }): boolean {
  const normalised = parseOrigin(origin);
  if (normalised === undefined) return false;
  const url = new URL(normalised);
  const originHost = parseHost(url.host);
  if (url.protocol !== scheme || originHost === undefined) return false;
  const defaultPort = scheme === 'https:' ? 443 : 80;
  return originHost.name === host.name && (originHost.port ?? defaultPort) === (host.port ?? defaultPort);
}
