import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import { isLoopbackName, parseHost } from '../core/host-names.js';
import type { HostGuard } from './host-guard.js';

const DEFAULT_PORT = { 'http:': 80, 'https:': 443 } as const;

/**
 * The router's address as this client reaches it (`http://127.0.0.1:8787`), for the messages that
 * name it (a base URL to use): never a fixed port, which after `serve --port` would point the user
 * at whatever else listens there. The request's `Host` when it is one of the router's own names
 * (the host guard's rule: loopback, the address bound, server.hosts), so a reverse proxy's name
 * comes back as configured; else the address and port the connection came in on, since any other
 * `Host` is the client's word only and must not be echoed as the router's.
 */
export function routerAddress(req: IncomingMessage, guard: HostGuard, scheme: 'http:' | 'https:'): string {
  const { localAddress, localPort } = req.socket;
  const host = typeof req.headers.host === 'string' ? parseHost(req.headers.host) : undefined;
  if (host !== undefined && guard.allows(host.name)) {
    // A loopback name is this machine, reached on the connection's own port whatever the Host leaves out; a proxy's name keeps the Host's.
    const port = host.port ?? (isLoopbackName(host.name) && localPort !== DEFAULT_PORT[scheme] ? localPort : undefined);
    return `${scheme}//${host.name}${port === undefined ? '' : `:${port}`}`;
  }
  // A pipe has no address to give: the machine's own name is the nearest.
  if (localPort === undefined) return `${scheme}//localhost`;
  // An IPv4 client of a dual-stack socket arrives as ::ffff:a.b.c.d.
  const address = localAddress?.startsWith('::ffff:') && net.isIPv4(localAddress.slice(7)) ? localAddress.slice(7) : (localAddress ?? '127.0.0.1');
  return `${scheme}//${net.isIPv6(address) ? `[${address}]` : address}:${localPort}`;
}
