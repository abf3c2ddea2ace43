import type { ConfigStore } from '../config/store.js';
import { whitespaceIn } from '../identity/key-whitespace.js';
import { KEY_ENV, originOf } from './client-settings.js';
import type { ApiResponse } from '../handlers/api.js';
import { notInitialisedError, refusedError, unreachableError } from './cli-error.js';
import { note, warn } from './output.js';
import { parseHttpUrl } from './parse-options.js';
import { routerAddress } from './router-address.js';
import { untrustedCertRemedy } from './tls-files.js';
import { openConfig } from './config-in-force.js';

export interface ConnectionOptions {
  baseUrl?: string;
  key?: string;
}

/** What a quick check gets back: a JSON body, or the frames of an event stream. */
export interface ClientResponse {
  status: number;
  json?: unknown;
  frames?: AsyncIterable<string>;
}

export interface RouterClient {
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ClientResponse>;
  close(): Promise<void>;
  /** The key it sends and where that came from, and the router's address over HTTP: what a refusal names. */
  sent: SentKey;
}

export interface SentKey {
  key: string;
  /** `the key given with --key`, `the key in SVC_ROUTER_KEY`, `the stored key (localKey in …)`. */
  source: string;
  stored: boolean;
  /** The router asked over HTTP; in-process, none. */
  origin?: string;
}

/**
 * The CLI's way to reach a router: the same handlers in-process with the stored key, or any
 * svc-router over HTTP when a base URL is given (flag or SVC_ROUTER_BASE_URL).
 */
export async function openClient(options: ConnectionOptions): Promise<RouterClient> {
  const given = options.baseUrl ?? process.env.SVC_ROUTER_BASE_URL;
  const baseUrl = given ? parseHttpUrl(given, options.baseUrl !== undefined ? '--base-url' : 'SVC_ROUTER_BASE_URL') : undefined;
  const config = await openConfig();
  const { key, source, stored } = chosenKey(options.key, config);
  if (key === undefined) throw notInitialisedError('no key: run svc-router init, or pass --key (or set SVC_ROUTER_KEY)');
  const whitespace = whitespaceIn(key);
  if (whitespace) warn(`${source} holds whitespace${whitespace === 'escaped' ? ' written out as an escape (\\n, %20 or the like)' : ''}; the router will refuse it (401).`);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  if (!baseUrl) return inProcessClient(config, headers, await inProcessStore(config), { key, source, stored });
  // HTTP would quietly drop whitespace at either end on the way, and refuses a line end inside:
  // refuse here as the router would. An escape is sent as it is, and the router says so.
  if (whitespace === 'raw') {
    throw refusedError('401: Invalid API key: it contains whitespace (a trailing space or newline?). Fix the key; no trailing whitespace.', { status: 401, server_code: 'invalid_api_key' });
  }
  return httpClient(baseUrl, headers, { key, source, stored });
}

/** The key a quick check sends, and where it came from (named when it is refused). */
function chosenKey(flag: string | undefined, config: ConfigStore): { key: string | undefined; source: string; stored: boolean } {
  if (flag !== undefined) return { key: flag, source: 'the key given with --key', stored: false };
  const fromEnvironment = process.env[KEY_ENV];
  if (fromEnvironment !== undefined) return { key: fromEnvironment, source: `the key in ${KEY_ENV}`, stored: false };
  return { key: config.read().localKey, source: `the stored key (localKey in ${config.path})`, stored: true };
}

/**
 * The usage store an in-process check reads: the running serve's (so `serve --usage-store
 * redis://…` and `whoami` count the same requests), else the configured one. With no server
 * answering, says so once on stderr: the check then shows the config, not a server.
 */
async function inProcessStore(config: ConfigStore): Promise<string | undefined> {
  const settings = config.read();
  const address = routerAddress(settings);
  if (address.serve) return address.serve.usageStoreUrl ?? (address.serve.usageStore === 'file' ? 'file' : undefined);
  const { endpointOf, probeTcp } = await import('./doctor/network.js');
  const { host, port } = endpointOf(new URL(address.origin));
  const probe = await probeTcp(host, port, NO_SERVER_PROBE_MS);
  if (!probe.ok) {
    note(
      `no svc-router answers at ${address.origin}: this check ran in-process on the config, not against a server. ` +
        `To check a running server: svc-router status, or this command with --base-url ${address.origin}.`,
    );
  }
  return undefined;
}

/** A loopback connection answers in well under this; a refused one fails at once. */
const NO_SERVER_PROBE_MS = 500;

async function inProcessClient(config: ConfigStore, headers: Record<string, string>, usageStore: string | undefined, sent: Omit<SentKey, 'origin'>): Promise<RouterClient> {
  const [{ createApp }, { dispatch }] = await Promise.all([import('../handlers/app.js'), import('../server/dispatch.js')]);
  const app = createApp({ config, ...(usageStore ? { usageStore } : {}) });
  const aborter = new AbortController();
  return {
    async call(method, path, body) {
      const response: ApiResponse = await dispatch(app, { method, path, headers, readBody: async () => body, signal: aborter.signal });
      if ('sse' in response) return { status: response.status, frames: splitFrames(response.sse) };
      return { status: response.status, json: 'json' in response ? response.json : 'body' in response ? JSON.parse(response.body) : undefined };
    },
    close: async () => {
      aborter.abort();
      await app.close();
    },
    sent,
  };
}

async function httpClient(baseUrl: string, headers: Record<string, string>, sent: Omit<SentKey, 'origin'>): Promise<RouterClient> {
  const { request } = await import('undici');
  // Accept the base URL with or without /v1: the CLI's paths are absolute.
  const origin = originOf(baseUrl);
  return {
    async call(method, path, body) {
      let response;
      try {
        response = await request(`${origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      } catch (error) {
        const detail = describeFailure(error);
        const remedy = untrustedCertRemedy(detail);
        throw unreachableError(`cannot reach ${origin}: ${detail}${remedy ? `. ${remedy}` : '; is svc-router serve running there? (svc-router status)'}`);
      }
      const type = String(response.headers['content-type'] ?? '');
      if (type.startsWith('text/event-stream')) return { status: response.statusCode, frames: splitFrames(response.body) };
      const text = await response.body.text();
      try {
        return { status: response.statusCode, json: JSON.parse(text) };
      } catch {
        return { status: response.statusCode, json: { error: { message: text.slice(0, 200) || `HTTP ${response.statusCode}` } } };
      }
    },
    close: async () => {},
    sent: { ...sent, origin },
  };
}

/**
 * Server-sent events arrive in arbitrary pieces (bytes over HTTP, several frames per piece from the
 * handlers); yield them one whole frame at a time.
 */
async function* splitFrames(body: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) !== -1) {
      yield buffered.slice(0, end + 2);
      buffered = buffered.slice(end + 2);
    }
  }
  if (buffered.trim()) yield buffered;
}

/** The router's machine-readable code in an error body of either shape (OpenAI's `code`, else the type). */
export function errorCode(json: unknown): string | undefined {
  const error = (json as { error?: { code?: unknown; type?: unknown } } | undefined)?.error;
  if (typeof error?.code === 'string') return error.code;
  return typeof error?.type === 'string' ? error.type : undefined;
}

/** A failure with its code (undici may put the reason in a cause): the code is what names the fix. */
function describeFailure(error: unknown): string {
  const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
  const { message, code } = error as NodeJS.ErrnoException;
  if (cause) return `${message} (${cause.code ? `${cause.code}: ` : ''}${cause.message})`;
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/** The message of an error body in either error shape. */
export function errorMessage(json: unknown, status: number): string {
  const error = (json as { error?: { message?: unknown } } | undefined)?.error;
  return typeof error?.message === 'string' ? error.message : `request failed with HTTP ${status}`;
}
