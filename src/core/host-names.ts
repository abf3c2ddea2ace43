import net from 'node:net';

/**
 * Host names as the router compares them: a `Host` header, a configured name (`server.hosts`), the
 * host of an `Origin`. Each is brought to one spelling first: lower case, no trailing dot, IPv4 in
 * dotted decimal (`127.1` → `127.0.0.1`, as resolvers read it) and IPv6 in brackets in its short
 * form (`[0:0::1]` → `[::1]`), by the WHATWG URL parser a browser uses to build the header.
 */

/** Letters, digits and hyphens in dot-separated labels (which covers IPv4 literals), a trailing dot allowed. */
const DNS_NAME = /^(?=[^:]{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;
const PORT = /^\d{1,5}$/;

/** What a configured host name looks like (a DNS name, IPv4, or IPv6 with or without brackets); parseHost has the last word. */
export const HOST_NAME_PATTERN = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?|\[?[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*\]?)$/;
/** What an origin looks like: scheme, host and optional port, nothing after; parseOrigin has the last word. */
export const ORIGIN_PATTERN = /^https?:\/\/(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export interface ParsedHost {
  /** `localhost`, `127.0.0.1`, `[::1]`, `router.example.com`. */
  name: string;
  port?: number;
}

/**
 * A host and optional port (`NAME[:PORT]`, `[IPV6][:PORT]`), or undefined when the text is not one.
 * Bare IPv6 (`::1`, no brackets) is read only with `bareIpv6` (a configured name, never a header:
 * there the colons would be ports).
 */
export function parseHost(text: string, options: { bareIpv6?: boolean } = {}): ParsedHost | undefined {
  if (text.length === 0 || text.length > 300) return undefined;
  let name: string;
  let port: string | undefined;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end === -1 || !net.isIPv6(text.slice(1, end))) return undefined;
    name = text.slice(0, end + 1);
    const rest = text.slice(end + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return undefined;
      port = rest.slice(1);
    }
  } else if (options.bareIpv6 && net.isIPv6(text)) {
    name = `[${text}]`;
  } else {
    const colon = text.indexOf(':');
    name = colon === -1 ? text : text.slice(0, colon);
    port = colon === -1 ? undefined : text.slice(colon + 1);
    if (!DNS_NAME.test(name)) return undefined;
  }
  if (port !== undefined && (!PORT.test(port) || Number(port) > 65_535)) return undefined;
  let canonical: string;
  try {
    canonical = new URL(`http://${name}`).hostname;
  } catch {
    return undefined;
  }
  if (canonical.endsWith('.')) canonical = canonical.slice(0, -1);
  return port === undefined ? { name: canonical } : { name: canonical, port: Number(port) };
}

/** A configured host name (no port; IPv6 with or without brackets) in parseHost's spelling, or undefined. */
export function parseHostName(text: string): string | undefined {
  const parsed = parseHost(text.trim(), { bareIpv6: true });
  return parsed === undefined || parsed.port !== undefined ? undefined : parsed.name;
}

/** Whether a name (as parseHost gives it) is this machine only: localhost, 127.0.0.0/8, ::1, ::ffff:127.x.y.z. */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost') return true;
  if (name.startsWith('[')) return name === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(name);
  return net.isIPv4(name) && name.startsWith('127.');
}

/**
 * Whether a host names this machine only: all of 127.0.0.0/8, ::1 (in any spelling),
 * IPv4-mapped ::ffff:127.x.y.z, and localhost. A wildcard (0.0.0.0, ::) or any other address is
 * reachable from other machines.
 */
export function isLoopbackHost(host: string): boolean {
  const name = parseHostName(host);
  return name !== undefined && isLoopbackName(name);
}

/** Whether an address a server binds is every interface's (0.0.0.0, ::). */
export const isWildcardAddress = (address: string): boolean => address === '' || address === '0.0.0.0' || address === '::' || address === '[::]';

/**
 * An origin (`https://app.example.com`, `http://localhost:5173`) in the one spelling browsers send
 * in `Origin`, or undefined when the text is not an http(s) origin (a path, a query, `null`).
 */
export function parseOrigin(text: string): string | undefined {
  if (text.length > 300 || !/^https?:\/\/[^/?#@\s]+$/i.test(text)) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (parseHost(url.host) === undefined) return undefined;
  return url.origin;
}

/** A base URL's host name, lower-cased; undefined when it is not a URL. */
export function hostOfUrl(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}
