import net from 'node:net';
import { performance } from 'node:perf_hooks';

export type Failure = 'refused' | 'timeout' | 'not-found' | 'unreachable' | 'error';

export type TcpProbe = { ok: true; ms: number } | { ok: false; failure: Failure; detail: string };

/** Where a URL's requests go: host (without IPv6 brackets) and port (the scheme's default when none is given). */
export function endpointOf(url: URL): { host: string; port: number } {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { host, port };
}

/** Opens (and closes) one TCP connection, telling a refused connection from one that times out. */
export function probeTcp(host: string, port: number, timeoutMs: number): Promise<TcpProbe> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect({ host, port });
    const done = (result: TcpProbe) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done({ ok: false, failure: 'timeout', detail: `timeout: no answer within ${timeoutMs} ms` }), timeoutMs);
    socket.once('connect', () => done({ ok: true, ms: Math.round(performance.now() - started) }));
    socket.once('error', (error: NodeJS.ErrnoException) => done(classify(error)));
  });
}

function classify(error: NodeJS.ErrnoException): TcpProbe {
  switch (error.code) {
    case 'ECONNREFUSED':
      return { ok: false, failure: 'refused', detail: 'connection refused' };
    case 'ETIMEDOUT':
      return { ok: false, failure: 'timeout', detail: 'timeout: the connection attempt timed out' };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { ok: false, failure: 'not-found', detail: 'host not found (DNS)' };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return { ok: false, failure: 'unreachable', detail: `no route to the host (${error.code})` };
    default:
      return { ok: false, failure: 'error', detail: `${error.code ?? 'error'}: ${error.message}` };
  }
}

export type HttpProbe =
  | { ok: true; status: number; json: unknown; text: string; headers: Record<string, string | string[] | undefined> }
  | { ok: false; failure: Failure; detail: string };

/** GET with a deadline for the whole answer; any status counts as an answer. */
export async function httpGet(url: string, headers: Record<string, string>, timeoutMs: number): Promise<HttpProbe> {
  // Loaded here, not with the module: quick checks import this file for probeTcp alone.
  const { Agent, request } = await import('undici');
  const dispatcher = new Agent({ connect: { timeout: timeoutMs }, keepAliveTimeout: 10, pipelining: 0 });
  const aborter = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    aborter.abort();
  }, timeoutMs);
  try {
    const response = await request(url, { method: 'GET', headers, dispatcher, signal: aborter.signal });
    const text = await response.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { ok: true, status: response.statusCode, json, text, headers: response.headers };
  } catch (error) {
    if (timedOut) return { ok: false, failure: 'timeout', detail: `no HTTP answer within ${timeoutMs} ms` };
    const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
    const code = (error as NodeJS.ErrnoException).code ?? cause?.code;
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return { ok: false, failure: 'timeout', detail: `timeout: no connection within ${timeoutMs} ms` };
    if (code) {
      const probe = classify({ ...(error as NodeJS.ErrnoException), code, message: (error as Error).message });
      if (!probe.ok) return probe;
    }
    return { ok: false, failure: 'error', detail: (error as Error).message };
  } finally {
    clearTimeout(timer);
    await dispatcher.destroy().catch(() => {});
  }
}

export type ListenProbe = { free: true } | { free: false; code: string; detail: string };

/** Whether `serve` could listen on host:port right now: listens for a moment, then lets go. */
export function tryListen(host: string, port: number): Promise<ListenProbe> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve({ free: false, code: error.code ?? 'error', detail: error.message }));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve({ free: true })));
  });
}
