import { isLoopbackHost } from '../loopback.js';
import type { ServerState } from '../server-state.js';
import type { DoctorClient } from './doctor-clients.js';
import { fail, pass, REMEDY, skip, warn, type CheckResult } from './result.js';

/**
 * A base URL as clients take it. The router serves its API under /v1 of its root: OpenAI-style
 * SDKs append /chat/completions to ROOT/v1, Anthropic's append /v1/messages to ROOT, Google's
 * append /v1beta/models/… to ROOT. The root is the origin, or a proxy's path prefix before the
 * version.
 */
export interface BaseUrlForm {
  /** The origin and any path prefix, without /v1, /v1beta or a trailing slash. */
  root: string;
  /** How many /v1 end it: 0 (the Anthropic and Gemini form), 1 (the OpenAI form), more (a paste mistake). */
  v1s: number;
  /** How many /v1beta end it (among the /v1s): always a mistake, as every Gemini client adds its own. */
  v1betas: number;
}

export function baseUrlForm(baseUrl: string): BaseUrlForm {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const versions = /(?:\/v1(?:beta)?)*$/.exec(path)![0];
  const v1betas = versions.split('/v1beta').length - 1;
  return { root: `${url.origin}${path.slice(0, path.length - versions.length)}`, v1s: versions.split('/').length - 1 - v1betas, v1betas };
}

/** Which base URL form a client takes: OpenAI-style SDKs append /chat/completions to HOST/v1, Anthropic's append /v1/messages to HOST, Google's /v1beta/models/… to HOST. */
const wantsV1 = (client: DoctorClient): boolean => client === 'openai' || client === 'codex';

/**
 * What each client appends to its base URL for a model request: the OpenAI SDKs' chat
 * completions, Codex's Responses API (its wire_api = "responses"), Anthropic's Messages API,
 * Gemini CLI's streamed generateContent (the Google GenAI SDK's API version is v1beta).
 */
export const REQUEST_PATH: Readonly<Record<DoctorClient, string>> = {
  openai: '/chat/completions',
  codex: '/responses',
  anthropic: '/v1/messages',
  claude: '/v1/messages',
  gemini: '/v1beta/models/svc.intelligent-pro:streamGenerateContent',
};

/** The URL a client given this base URL requests, and so the path that gets 404 when the form is wrong. */
const requested = (baseUrl: string, client: DoctorClient): string => `${new URL(baseUrl).pathname.replace(/\/+$/, '')}${REQUEST_PATH[client]}`;

export interface BaseUrlContext {
  /** The base URL was given (--base-url, SVC_ROUTER_BASE_URL), not taken from the serve or config. */
  given: boolean;
  client?: DoctorClient;
  /** Where the address came from when none was given: `configured`, `running serve's`. */
  source?: string;
  /** The running serve of this config directory. */
  serve?: ServerState;
  /** Whether svc-router answered /whoami at the base URL's root. */
  answered?: boolean;
}

/** The address (or both) to use instead, in the form each client needs. */
const use = (root: string, client: DoctorClient | undefined): string =>
  client === undefined
    ? `Use ${root}/v1 for OpenAI-style clients (chat, responses) and ${root} for Anthropic-style and Gemini ones.`
    : `Use ${wantsV1(client) ? `${root}/v1` : root} for ${client}.`;

/**
 * A given base URL in the form its client needs, at the router it means. Without --client either
 * form is right (the OpenAI one ends in /v1, the Anthropic one does not); with it, the client's
 * form is checked. /v1 twice is wrong for every client, and an address on this machine other than
 * the running serve's is named with the serve's.
 */
export function checkBaseUrl(baseUrl: string, context: BaseUrlContext): CheckResult {
  const { root, v1s, v1betas } = baseUrlForm(baseUrl);
  const { client } = context;
  if (!context.given) return skip('base-url', `no --base-url given; checking the ${context.source ?? 'configured'} address ${root}`);
  const elsewhere = context.serve ? otherThanServe(baseUrl, context.serve) : undefined;
  // Nothing answers there, and this directory's serve is elsewhere on the same host: point at it.
  const missesServe = elsewhere !== undefined && !context.answered;
  const problems = [
    ...(v1s > 1 ? [`/v1 ${v1s === 2 ? 'twice' : `${v1s} times`}: ${client ? `${client} gets 404 on ${requested(baseUrl, client)}` : `clients append their own path and get 404 (${requested(baseUrl, 'openai')}, ${requested(baseUrl, 'anthropic')})`}`] : []),
    ...(v1betas > 0 ? [`ends in /v1beta, which Gemini clients add themselves: ${client ? `${client} gets 404 on ${requested(baseUrl, client)}` : `clients get 404 (${requested(baseUrl, 'gemini')}, ${requested(baseUrl, 'openai')})`}`] : []),
    ...(missesServe ? [elsewhere] : []),
  ];
  if (problems.length) return fail('base-url', `${baseUrl}: ${problems.join('; ')}`, use(missesServe ? baseUrlForm(context.serve!.url).root : root, client));
  const hasV1 = v1s === 1;
  const form = (): CheckResult => {
    if (client === undefined) return pass('base-url', hasV1 ? `${baseUrl} is the OpenAI-style form (Anthropic clients take ${root})` : `${baseUrl} is the Anthropic-style form (OpenAI-style clients take ${root}/v1)`);
    if (wantsV1(client) === hasV1) return pass('base-url', `${baseUrl} is the form ${client} needs`);
    if (wantsV1(client)) return fail('base-url', `${baseUrl} does not end in /v1: ${client} gets 404 on ${requested(baseUrl, client)}`, `${REMEDY.missingV1} Use ${root}/v1.`);
    if (client === 'gemini') return fail('base-url', `${baseUrl} ends in /v1: ${client} appends /v1beta/models/… itself and gets 404 on ${requested(baseUrl, client)}`, `Use ${root} (without /v1) for Gemini clients (GOOGLE_GEMINI_BASE_URL).`);
    return fail('base-url', `${baseUrl} ends in /v1: ${client} appends /v1/messages itself and gets 404 on ${requested(baseUrl, client)}`, `Use ${root} (without /v1) for Anthropic-style clients.`);
  };
  const result = form();
  // A router answers there, but not this config directory's serve: worth saying, not a failure.
  if (elsewhere && result.status === 'pass') return warn('base-url', `${result.message}; but ${elsewhere}`, `If you meant this config directory's serve: ${use(baseUrlForm(context.serve!.url).root, client)}`);
  return result;
}

const portOf = (url: URL): string => url.port || (url.protocol === 'https:' ? '443' : '80');

/** How a base URL on the serve's host misses the running serve (its port, its scheme), or undefined. */
function otherThanServe(baseUrl: string, serve: ServerState): string | undefined {
  const given = new URL(baseUrl);
  let served: URL;
  try {
    served = new URL(serve.url);
  } catch {
    return undefined;
  }
  const sameHost = given.hostname === served.hostname || (isLoopbackHost(given.hostname) && isLoopbackHost(served.hostname));
  if (!sameHost) return undefined;
  const differs = [
    ...(given.protocol !== served.protocol ? [`speaks ${served.protocol.slice(0, -1)}, not ${given.protocol.slice(0, -1)}`] : []),
    ...(portOf(given) !== portOf(served) ? [`listens on port ${portOf(served)}, not ${portOf(given)}`] : []),
  ];
  return differs.length ? `the running serve (pid ${serve.pid}) ${differs.join(' and ')} (${serve.url})` : undefined;
}
