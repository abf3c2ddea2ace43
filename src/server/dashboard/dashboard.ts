import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RouterError } from '../../core/errors.js';
import { formatCount, formatUsd, NUMBER_FORMAT_SCRIPT } from '../../core/format-numbers.js';
import type { App } from '../../handlers/app.js';
import { requireAdmin } from '../../identity/admin.js';
import { authenticate, DEFAULT_KEY_SOURCES, presentedKey } from '../../identity/authenticate.js';
import { openaiErrorBody } from '../../formats/openai-error.js';
import { errorHeaders } from '../error-headers.js';
import type { StoredRequest } from '../request-records.js';
import { LiveFeed } from './live-feed.js';
import { buildOverview, type InForce } from './overview.js';

/** Where the dashboard is served. */
export const UI_PATH = '/ui';
/** The cookie the key form sets, so EventSource (which sends no headers) is let in beyond loopback. */
const SESSION_COOKIE = 'svc_router_ui';
/** A comment line on the event stream this often, so proxies and browsers keep it open. */
const HEARTBEAT_MS = 15_000;

/** The page and its script: static files shipped beside dist/ and src/ (ui/), read once. */
const UI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../ui');
const ASSETS: Record<string, { file: string; type: string }> = Object.assign(Object.create(null) as Record<string, { file: string; type: string }>, {
  '/ui/dashboard.js': { file: 'dashboard.js', type: 'text/javascript; charset=utf-8' },
  '/ui/dashboard.css': { file: 'dashboard.css', type: 'text/css; charset=utf-8' },
  '/ui/format.js': { file: 'format.js', type: 'text/javascript; charset=utf-8' },
});
/** Not a file: the number formats the CLI uses, as the page's script (src/core/format-numbers.ts). */
const GENERATED: Readonly<Record<string, string>> = { 'format.js': NUMBER_FORMAT_SCRIPT };

export interface Dashboard {
  /** Fed by the HTTP layer's one call per finished request (give it to the server as a request log). */
  readonly feed: LiveFeed;
  /**
   * Whether an admin key is asked for. True until the server says it is bound to loopback only
   * (serve sets it once it knows the address it bound).
   */
  requireAdminKey: boolean;
  /** What serve runs with beyond the stored settings (its flags), shown as the config in force. */
  inForce: InForce;
  /** Answers a request under /ui. */
  serve(app: App, req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
}

export function createDashboard(): Dashboard {
  const feed = new LiveFeed();
  const files = new Map<string, Buffer>();
  const asset = (name: string): Buffer => {
    let body = files.get(name);
    if (!body) files.set(name, (body = Object.hasOwn(GENERATED, name) ? Buffer.from(GENERATED[name]!) : fs.readFileSync(path.join(UI_DIR, name))));
    return body;
  };
  // The page arrives in one response: its stylesheet and script inlined (they stay servable on their own too).
  let page: string | undefined;
  const pageHtml = (): string =>
    (page ??= asset('index.html')
      .toString('utf8')
      .replace('<link rel="stylesheet" href="/ui/dashboard.css">', () => `<style>\n${asset('dashboard.css').toString('utf8')}</style>`)
      .replace('<script src="/ui/format.js" defer></script>', () => `<script>\n${asset('format.js').toString('utf8')}</script>`)
      .replace('<script src="/ui/dashboard.js" defer></script>', () => `<script>\n${asset('dashboard.js').toString('utf8')}</script>`));
  const dashboard: Dashboard = {
    feed,
    requireAdminKey: true,
    inForce: {},
    async serve(app, req, res, urlPath) {
      const method = req.method ?? 'GET';
      try {
        if (urlPath === `${UI_PATH}/session` && method === 'POST') {
          const refused = await startSession(app, req, res);
          if (refused !== undefined) send(res, 401, 'text/html; charset=utf-8', Buffer.from(asset('login.html').toString('utf8').replace('<!--error-->', escapeHtml(refused))), false);
          return;
        }
        if (method !== 'GET' && method !== 'HEAD') throw new RouterError(405, 'method_not_allowed', `Method ${method} is not allowed on ${urlPath}; use GET.`);
        if (Object.hasOwn(ASSETS, urlPath)) {
          const { file, type } = ASSETS[urlPath]!;
          return send(res, 200, type, asset(file), method === 'HEAD');
        }
        const allowed = !dashboard.requireAdminKey || isAdminRequest(app, req);
        if (urlPath === UI_PATH) {
          const html = allowed ? pageHtml().replace('<!--rows-->', () => rowsHtml(feed.recent() as StoredRequest[])) : asset('login.html').toString('utf8');
          return send(res, allowed ? 200 : 401, 'text/html; charset=utf-8', Buffer.from(html), method === 'HEAD');
        }
        if (!allowed) throw new RouterError(401, 'authentication', 'The dashboard needs an admin key beyond loopback: open /ui and enter one (the local key, or a key with --tier admin).', undefined, 'admin_key_required');
        if (urlPath === `${UI_PATH}/api/overview`) {
          const overview = await buildOverview(app, app.config.read(), feed.recent() as StoredRequest[], dashboard.inForce);
          return send(res, 200, 'application/json', Buffer.from(JSON.stringify({ ...overview, recent: feed.recent() })), method === 'HEAD');
        }
        // The sessions panel: the same report as GET /admin/sessions.
        if (urlPath === `${UI_PATH}/api/sessions`) return send(res, 200, 'application/json', Buffer.from(JSON.stringify(app.sessions.report())), method === 'HEAD');
        if (urlPath === `${UI_PATH}/events`) return openEvents(res, feed);
        throw new RouterError(404, 'not_found', `No dashboard page at ${urlPath}; the dashboard is at ${UI_PATH}.`, undefined, 'not_found');
      } catch (error) {
        const routerError = error instanceof RouterError ? error : new RouterError(500, 'internal', 'The dashboard failed to answer.');
        send(res, routerError.status, 'application/json', Buffer.from(JSON.stringify(openaiErrorBody(routerError))), false, errorHeaders(routerError));
      }
    },
  };
  return dashboard;
}

function send(res: ServerResponse, status: number, type: string, body: Buffer, headOnly: boolean, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'content-type': type, 'content-length': body.length, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(headOnly ? undefined : body);
}

/** The event stream: what is queued for watchers is written on the next turn; a heartbeat keeps it open. */
function openEvents(res: ServerResponse, feed: LiveFeed): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  res.write(': svc-router dashboard\n\n');
  feed.watch(res);
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
  res.once('close', () => clearInterval(heartbeat));
}

/** Whether the request carries an admin key: in a header (scripts) or the session cookie (the browser). */
function isAdminRequest(app: App, req: IncomingMessage): boolean {
  const headers = req.headers as Record<string, string | undefined>;
  const key = presentedKey(headers, DEFAULT_KEY_SOURCES) ?? sessionKey(headers.cookie);
  if (key === undefined) return false;
  try {
    const settings = app.config.read();
    requireAdmin(settings, authenticate(settings, key));
    return true;
  } catch {
    return false;
  }
}

function sessionKey(cookie: string | undefined): string | undefined {
  for (const part of (cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/**
 * POST /ui/session (the key form): checks the key, then keeps it in an HttpOnly cookie for this path
 * and sends the browser back to the page. Returns why a key was refused (the caller shows the form again).
 */
async function startSession(app: App, req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 4_096) throw new RouterError(413, 'too_large', 'The key form is larger than a key.');
  }
  const key = new URLSearchParams(body).get('key') ?? '';
  const settings = app.config.read();
  try {
    requireAdmin(settings, authenticate(settings, key));
  } catch (error) {
    return error instanceof RouterError ? error.message : 'Invalid key.';
  }
  res.writeHead(303, { location: UI_PATH, 'set-cookie': `${SESSION_COOKIE}=${encodeURIComponent(key)}; Path=${UI_PATH}; HttpOnly; SameSite=Strict`, 'content-length': 0 });
  res.end();
  return undefined;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The longest path a row shows; the whole of it is in the request log. */
const PATH_SHOWN = 120;

/** `POST /v1/messages`: which request a row is, whether or not it reached a model (probes, 404s). */
const requestLine = (request: StoredRequest): string =>
  `${request.method} ${request.path.length > PATH_SHOWN ? `${request.path.slice(0, PATH_SHOWN - 1)}…` : request.path}`;

/** The classes of the table's cells, in column order (the script's rows have the same). */
const COLUMN_CLASSES = ['', 'request', '', '', '', 'targets', 'number', 'number', '', 'number', 'error'];

/** The recent requests as table rows, newest first: the page without its script is this table. */
function rowsHtml(recent: StoredRequest[]): string {
  return recent
    .slice()
    .reverse()
    .map((request) => {
      const cells = [
        request.time.slice(11, 19),
        requestLine(request),
        request.caller ?? '',
        request.format ?? '',
        request.model ?? '',
        (request.targets ?? []).map((target) => `${target.backend}:${target.upstream_model} ${target.outcome}`).join(' → ') || (request.backend ?? ''),
        request.input_tokens === undefined ? '' : `${formatCount(request.input_tokens)}+${formatCount(request.output_tokens ?? 0)}`,
        request.cost_usd === undefined ? '' : formatUsd(request.cost_usd),
        String(request.status),
        `${formatCount(request.latency_ms)} ms`,
        // What failed, and what each policy noted (a guardrail's verdict, never the value it found).
        [request.error, ...Object.entries(request.notes ?? {}).map(([name, note]) => `${name}: ${note}`)].filter(Boolean).join(' · '),
      ];
      const classes = COLUMN_CLASSES;
      return `<tr data-request-id="${escapeHtml(request.request_id ?? '')}">${cells.map((cell, i) => `<td${classes[i] ? ` class="${classes[i]}"` : ''}>${escapeHtml(cell)}</td>`).join('')}</tr>`;
    })
    .join('\n');
}
