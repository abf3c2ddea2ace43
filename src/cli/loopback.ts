import net from 'node:net';

/**
 * Whether a host names this machine only: all of 127.0.0.0/8, ::1 (in any spelling),
 * IPv4-mapped ::ffff:127.x.y.z, and localhost. A wildcard (0.0.0.0, ::) or any other address is
 * reachable from other machines.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (net.isIPv6(bare)) {
    // The URL parser writes IPv6 in its canonical short form: ::1, ::ffff:7f00:1.
    const canonical = new URL(`http://[${bare}]`).hostname.slice(1, -1);
    return canonical === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
  }
  let name: string;
  try {
    // Also normalises the short and hex forms the resolver accepts (127.1, 0x7f.0.0.1) and case.
    name = new URL(`http://${bare}`).hostname;
  } catch {
    return false;
  }
  if (net.isIPv4(name)) return name.startsWith('127.');
  return name === 'localhost' || name === 'localhost.';
}
