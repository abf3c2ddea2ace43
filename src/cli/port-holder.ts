import { httpGet, tryListen } from './doctor/network.js';
import type { ServerState } from './server-state.js';

/** How long the probe of a taken port may take: a local program answers in milliseconds. */
const PROBE_MS = 1_000;
/** How far past a taken port to look for a free one. */
const SEARCH_SPAN = 20;

/**
 * Says what holds a port `serve` could not take: this config's svc-router (from its state file),
 * another svc-router, another HTTP server (its Server header and page title), or a program that
 * does not speak HTTP. The words come from that program, so they are cut short and stripped of
 * control characters before they reach the terminal.
 */
export async function describePortHolder(host: string, port: number, running: ServerState | undefined): Promise<string> {
  if (running && running.port === port) return `svc-router (pid ${running.pid}, started ${running.startedAt}) already serves there: svc-router status, or svc-router stop`;
  const answer = await httpGet(`http://${host.includes(':') ? `[${host}]` : host}:${port}/`, { accept: 'application/json, text/html' }, PROBE_MS);
  if (!answer.ok) return answer.failure === 'timeout' ? 'a program that accepts connections but does not answer HTTP' : `a program that does not answer HTTP (${answer.detail})`;
  if ((answer.json as { name?: unknown } | undefined)?.name === 'svc-router') return 'another svc-router (started with a different config directory, SVC_ROUTER_HOME)';
  const server = headerText(answer.headers.server);
  const poweredBy = headerText(answer.headers['x-powered-by']);
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(answer.text)?.[1];
  const said = [server && `Server: ${server}`, poweredBy && `X-Powered-By: ${poweredBy}`, title && `title "${printable(title)}"`].filter(Boolean);
  return `another HTTP server (answered ${answer.status}${said.length ? `; ${said.join(', ')}` : ''})`;
}

/** The first port after `port` that `host` can listen on, if one is free nearby. */
export async function nextFreePort(host: string, port: number): Promise<number | undefined> {
  for (let candidate = port + 1; candidate <= Math.min(65_535, port + SEARCH_SPAN); candidate++) {
    if ((await tryListen(host, candidate)).free) return candidate;
  }
  return undefined;
}

const headerText = (value: string | string[] | undefined): string | undefined => (value === undefined ? undefined : printable(Array.isArray(value) ? value.join(', ') : value));

/** At most 80 characters, with no control characters (no escape sequences reach the terminal). */
const printable = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim().slice(0, 80);
