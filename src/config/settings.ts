/** The shape of the stored configuration (config.json under the svc-router home). */

import { randomBytes } from 'node:crypto';
import type { BackendType } from '../core/backend-types.js';
import type { ChatProfileName } from '../core/chat-profiles.js';

/** The backend types are those src/core/backend-types.ts lists (BACKEND_TYPES there). */
export type { BackendType };

export interface BackendSettings {
  type: BackendType;
  baseUrl: string;
  /** Stored in the 0600 config file; never printed, logged or returned. */
  apiKey?: string;
  /** Name of an environment variable that holds the key, read when the backend is called. */
  apiKeyEnv?: string;
  headers?: Record<string, string>;
  timeouts?: BackendTimeouts;
  /** Several upstream keys used in turn; when set, it replaces apiKey/apiKeyEnv for calls. */
  keyPool?: KeyPoolSettings;
  /**
   * openai-chat only: the upstream takes Anthropic-style `cache_control` on content parts (OpenRouter,
   * for its Anthropic and Gemini models), so a Messages client's breakpoints are passed on, and the
   * router places them for clients that set none.
   */
  cacheControl?: boolean;
  /** anthropic only: how the key is sent, `x-api-key: KEY` (the default) or `Authorization: Bearer KEY`. */
  auth?: AnthropicAuth;
  /** anthropic only: the `anthropic-version` every call sends, in place of the client's (a service that takes only one). */
  anthropicVersion?: string;
  /** gemini only: the API version in the path (`v1beta`, the default, or `v1`, `v1alpha`). */
  apiVersion?: string;
  /** vertex only: the Google Cloud project whose Vertex AI serves the models. */
  project?: string;
  /**
   * vertex: the location (us-east5, europe-west1, global …) in the model's path; bedrock: the AWS
   * region of the endpoint and the signature (else $AWS_REGION, then $AWS_DEFAULT_REGION).
   */
  region?: string;
  /**
   * vertex only: a service-account key file (JSON) for Google access tokens; without it,
   * $GOOGLE_APPLICATION_CREDENTIALS, else the metadata server of the machine.
   */
  credentials?: string;
  /** openai-chat only: the provider whose particular rules the backend follows (src/backends/openai-chat/profiles/). */
  profile?: ChatProfileName;
  /**
   * openrouter profile only: OpenRouter's `provider` object (order, allow_fallbacks, only, ignore,
   * sort, data_collection, require_parameters …), sent with every request
   * (https://openrouter.ai/docs/features/provider-routing).
   */
  providerRouting?: Record<string, unknown>;
  /** bedrock only: the profile of the shared AWS config/credentials files to sign with (else $AWS_PROFILE, then `default`). */
  awsProfile?: string;
  /**
   * openai-responses only: streamed turns go over the upstream's WebSocket mode, one socket per
   * client session, each turn sending only its new input (src/backends/openai-responses/socket/).
   */
  websocket?: boolean;
}

/** How an Anthropic-compatible upstream takes its key. */
export type AnthropicAuth = 'x-api-key' | 'bearer';
export const ANTHROPIC_AUTHS: readonly AnthropicAuth[] = ['x-api-key', 'bearer'];

/** How a pool picks its next key: each in turn, or always the first that is not cooling down. */
export type KeyPoolStrategy = 'round-robin' | 'fill-first';
export const KEY_POOL_STRATEGIES: readonly KeyPoolStrategy[] = ['round-robin', 'fill-first'];

/** One key of a pool: stored (0600 file, never printed) or read from an environment variable at call time. */
export type PooledKey = { apiKey: string } | { apiKeyEnv: string };

export interface KeyPoolSettings {
  strategy: KeyPoolStrategy;
  keys: PooledKey[];
  /** How long a key rests after a 429 whose answer says nothing of when to come back. */
  rateLimitCooldownMs?: number;
  /** How long a key rests after a 402 (its account is out of credit) that says nothing of when to come back. */
  paymentCooldownMs?: number;
}

export const DEFAULT_RATE_LIMIT_COOLDOWN_MS = 60_000;
export const DEFAULT_PAYMENT_COOLDOWN_MS = 3_600_000;

/** Per-backend limits on waiting for the upstream, in milliseconds. */
export interface BackendTimeouts {
  /** To open the TCP/TLS connection. */
  connectMs?: number;
  /** From sending the request to the response headers. */
  firstByteMs?: number;
  /** Between two chunks of a body, streamed or not. */
  idleMs?: number;
  /**
   * A non-streamed call as a whole: from sending the request to the last byte of the answer,
   * connecting included (each attempt on its own). A stream is bounded by it only until its
   * headers: an answer may stream for as long as chunks keep coming, and the idle timeout bounds it.
   */
  totalMs?: number;
}

export const DEFAULT_TIMEOUTS: Required<BackendTimeouts> = { connectMs: 10_000, firstByteMs: 300_000, idleMs: 120_000, totalMs: 600_000 };

/** An issued key: only its hash is kept, with the identity it stands for. */
export interface KeyRecord {
  developer: string;
  organisation: string;
  tier: string;
  capTokens: number;
  /** SHA-256 of the key, hex. */
  hash: string;
  /** The key's first characters, so a listing can tell keys apart without revealing them. */
  hint: string;
  createdAt: string;
  /** Requests and tokens this key may use per minute, across every router sharing the usage store. */
  rateLimit?: RateLimitSettings;
}

/** Per-key limits over a sliding minute; a limit left out is not enforced. */
export interface RateLimitSettings {
  requestsPerMinute?: number;
  /** Input (estimated on arrival, corrected to the upstream's count) plus output tokens. */
  tokensPerMinute?: number;
}

/** Request properties a task rule can test; a rule applies when every condition it sets holds. */
export interface TaskConditions {
  /** The client asked for a small, fast model (a `*haiku*` id), as coding agents do for background work. */
  background?: boolean;
  /** The request turns thinking on (a thinking budget, or a reasoning effort above minimal). */
  thinking?: boolean;
  /** The estimated input is above this many tokens. */
  contextAbove?: number;
  /** An image is anywhere in the conversation. */
  image?: boolean;
  /** The request offers a web search tool (Anthropic's web_search_*, Responses' web_search*, Chat's web_search_options). */
  webSearch?: boolean;
  /** The client's model name matches this `*` pattern. */
  model?: string;
}

/** A rule on a route: requests that match it go to its own chain of targets. */
export interface TaskRule {
  /** Named in the request log and in svc_meta.rule when it chose the targets. */
  name: string;
  when: TaskConditions;
  /** Ordered targets `BACKEND[:UPSTREAM_MODEL]`, as a route's. */
  targets: string[];
}

/** What the secrets guardrail does with a request whose text holds credentials (src/policies/secrets-guardrail.ts). */
export type SecretsMode = 'off' | 'warn' | 'mask' | 'refuse';
export const SECRETS_MODES: readonly SecretsMode[] = ['off', 'warn', 'mask', 'refuse'];

/** Guardrails on what requests send upstream. */
export interface GuardrailSettings {
  secrets: SecretsMode;
}

/**
 * Claude Code's auto mode asks the upstream for a verdict on each tool call it is sent
 * (`safeguards`); an upstream that gives none gets one from the router (src/policies/safety-verdicts.ts).
 */
export interface SafeguardSettings {
  /** The route asked whether each tool call is dangerous (`svc.intelligent-lite`); unset: no verdicts, and Claude Code asks the user. */
  classifier?: string;
  /** Longest wait for one verdict, from the end of its tool call; the reply's end is held at most this long. */
  timeoutMs: number;
}

/** What a route does beyond its fallback chain. */
export interface RoutePolicy {
  /** Tried in order; the first that matches picks the chain, else the route's own targets serve. */
  rules?: TaskRule[];
  /**
   * Load balancing: target text → weight. The first target of the chain is drawn by weight among
   * the weighted targets (smooth weighted round-robin), once per session (each request, for one
   * that names none); the others stay in order as fallbacks.
   */
  weights?: Record<string, number>;
  /** This route's guardrails, over the router's (`routes guard`). */
  guardrails?: Partial<GuardrailSettings>;
  /**
   * Where web search runs for this route's targets that have none of their own (`routes search`):
   * a target `BACKEND[:UPSTREAM_MODEL]` whose upstream searches natively. The router offers the
   * model a search function and answers its calls there (src/handlers/served-search.ts).
   */
  search?: string;
}

/** How requests are routed beyond each route's own chain. */
export interface RoutingSettings {
  /**
   * A request header (lower case) that names the client's session, read before the headers coding
   * agents send on their own (src/routing/session-key.ts): one session's requests stay on one
   * target and one pooled key while those answer.
   */
  sessionHeader?: string;
}

/** How the usage cap holds before a request is answered. */
export interface LimitSettings {
  /** Output reserved for a request that sets no max output tokens (its input is reserved too). */
  outputReserveTokens: number;
  /** How long a reservation outlives a router that died before settling it. */
  reservationTtlMs: number;
  /** A cap on each client session's use (src/policies/session-cap.ts); none until set. */
  session?: SessionLimit;
}

/**
 * What one client session (src/routing/session-key.ts) may use before its requests are refused;
 * a limit left out is not enforced. A session idle for an hour starts again at nothing.
 */
export interface SessionLimit {
  /** Input plus output tokens. */
  tokens?: number;
  /** US dollars, at the prices its usage is billed at. */
  usd?: number;
}

/**
 * Where the router says a key crossed 50, 80 or 100 % of its 30-day cap, besides the reply's own
 * notices: one JSON POST per threshold per key per 30 days (src/usage/usage-webhook.ts).
 */
export interface NotifySettings {
  /** The receiving URL. It may hold a token (a chat webhook's path does): never printed whole, and redacted from logs. */
  webhook?: string;
  /** Name of an environment variable that holds the URL, read when a notice is sent (the declarative file names it so). */
  webhookEnv?: string;
}

/** How serve listens, and what it allows clients. */
export interface ServerSettings {
  host: string;
  port: number;
  bodyLimitBytes: number;
  /** Serve GET /metrics (read when serve starts; serve --metrics turns it on too). */
  metrics: boolean;
  /** From a request's headers to the end of its body; past it, 408 and the connection is closed (read when serve starts). */
  bodyTimeoutMs: number;
  /** From a connection's first byte (or a kept-alive request's) to the end of its headers; Node answers 408 past it (read when serve starts). */
  headersTimeoutMs: number;
  /** Open client connections; one more is answered 503 and closed (read when serve starts). */
  maxConnections: number;
  /** Serve the dashboard at /ui (read when serve starts; serve --ui turns it on too). */
  ui: boolean;
  /** Take Responses over WebSocket on GET /v1/responses; off, an upgrade gets 426 and clients stay on HTTP (read per upgrade). */
  websockets: boolean;
  /** Named streams (`stream_id`) one Responses socket may run; a create naming one more gets an error event (read per upgrade). */
  socketStreams: number;
  /** Completed responses a socket keeps per named stream for previous_response_id and forks (read per upgrade). */
  socketTurnsPerStream: number;
  /** Bytes of conversation (items written out) a socket keeps across its streams; the oldest response goes first past it (read per upgrade). */
  socketKeptBytes: number;
  /** Export a span per request over OTLP/HTTP (read when serve starts; serve --otel turns it on too; the endpoint comes from --otel URL or OTEL_EXPORTER_OTLP_ENDPOINT). */
  otel: boolean;
  /** Days the searchable request log (`svc-router logs`) keeps a request. */
  requestLogDays: number;
  /** Bytes the searchable request log may take on disk, both generations together. */
  requestLogMaxBytes: number;
  /** Serve HTTPS with this PEM certificate (chain) and private key, given as file paths (read when serve starts). */
  tls?: TlsFiles;
  /**
   * Names (and addresses) the dashboard, /admin/* and /metrics answer to in `Host`, besides the
   * address bound and, on loopback or a wildcard bind, the loopback names (src/server/host-guard.ts).
   */
  hosts: string[];
  /** Origins (`https://app.example.com`) whose browser pages may call the model endpoints (CORS). */
  cors: string[];
}

/** Paths of a PEM certificate (its chain after it) and its private key. */
export interface TlsFiles {
  cert: string;
  key: string;
}

/**
 * What an upstream model costs, in US dollars per million tokens. Input tokens read from or written
 * to the provider's prompt cache are priced on their own; a price left out means "not known", and a
 * request that used such tokens gets no cost at all rather than a wrong one.
 */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** A higher rate for the whole request once its input passes a size (Gemini 2.5 Pro, Claude Sonnet's long context). */
  longContext?: { aboveInputTokens: number; input: number; output: number; cacheRead?: number; cacheWrite?: number };
}

export interface Settings {
  /** The local developer's own key, so the CLI can call the router (file mode 0600). */
  localKey?: string;
  /** Secret for sealing payloads that clients replay (created by init). */
  secret?: string;
  keys: Record<string, KeyRecord>;
  backends: Record<string, BackendSettings>;
  /** Model name or pattern → ordered targets `BACKEND[:UPSTREAM_MODEL]` (fallback order). */
  routes: Record<string, string[]>;
  /** Route name (as in `routes`) → its task rules and weights. */
  routePolicies: Record<string, RoutePolicy>;
  routing: RoutingSettings;
  /**
   * Context windows in tokens, by route name (`svc.intelligent-pro`, `claude-*`) or by target
   * (`BACKEND:UPSTREAM_MODEL`). Without one, the model catalog's window is used
   * (src/routing/context-windows.ts); `connect` and the model catalogs tell clients the number.
   */
  contextWindows: Record<string, number>;
  server: ServerSettings;
  limits: LimitSettings;
  /** Off until set: `config set guardrails.secrets warn|mask|refuse`; a route may set its own. */
  guardrails: GuardrailSettings;
  /** Off until a webhook is set: `config set notify.webhook URL`. */
  notify: NotifySettings;
  /** Safety verdicts for Claude Code's auto mode on routes whose upstream gives none: `config set safeguards.classifier ROUTE`. */
  safeguards: SafeguardSettings;
  usage: { store: string };
  /**
   * Prices by upstream model name (`gpt-4.1`) or by `BACKEND:MODEL`, over the model catalog's
   * (src/catalog/); src/usage/prices.ts reads them.
   */
  prices: Record<string, ModelPrice>;
  defaults: { organisation: string; tier: string; capTokens: number };
}

export const DEFAULT_SETTINGS: Settings = {
  keys: {},
  backends: {},
  routes: {},
  routePolicies: {},
  routing: {},
  contextWindows: {},
  server: {
    host: '127.0.0.1',
    port: 8787,
    bodyLimitBytes: 20 * 1024 * 1024,
    metrics: false,
    // A 20 MiB body needs about 3 Mbit/s to arrive in time; a JSON prompt on loopback takes milliseconds.
    bodyTimeoutMs: 60_000,
    headersTimeoutMs: 60_000,
    // Far beyond what a team's agents hold open (a few kept-alive sockets each). Each connection is a file
    // descriptor, and a request may hold an upstream socket too: keep `ulimit -n` above twice this.
    maxConnections: 1024,
    ui: false,
    websockets: true,
    socketStreams: 32,
    socketTurnsPerStream: 32,
    socketKeptBytes: 64 * 1024 * 1024,
    otel: false,
    requestLogDays: 7,
    requestLogMaxBytes: 50 * 1024 * 1024,
    hosts: [],
    cors: [],
  },
  limits: { outputReserveTokens: 4_096, reservationTtlMs: 600_000 },
  guardrails: { secrets: 'off' },
  notify: {},
  // A small model answers a one-line verdict in a few seconds; past this Claude Code is told the check failed.
  safeguards: { timeoutMs: 20_000 },
  usage: { store: 'file' },
  prices: {},
  // Sized for coding agents: one `claude -p "say hi"` sends ~18,000 input tokens and a working
  // session's calls average 40,000–60,000 as context grows, so 200M / 30 days (~6.7M a day) is
  // 110–170 agent calls every day, while a runaway loop still meets the cap within hours.
  defaults: { organisation: 'personal', tier: 'standard', capTokens: 200_000_000 },
};

/** Fills what a stored file leaves out, so readers never see a partial shape. */
export function withDefaults(stored: Partial<Settings>): Settings {
  return {
    ...stored,
    keys: stored.keys ?? {},
    backends: stored.backends ?? {},
    routes: stored.routes ?? {},
    routePolicies: stored.routePolicies ?? {},
    routing: { ...stored.routing },
    limits: { ...DEFAULT_SETTINGS.limits, ...stored.limits },
    guardrails: { ...DEFAULT_SETTINGS.guardrails, ...stored.guardrails },
    notify: { ...stored.notify },
    safeguards: { ...DEFAULT_SETTINGS.safeguards, ...stored.safeguards },
    contextWindows: stored.contextWindows ?? {},
    server: { ...DEFAULT_SETTINGS.server, ...stored.server },
    usage: { ...DEFAULT_SETTINGS.usage, ...stored.usage },
    prices: stored.prices ?? {},
    defaults: { ...DEFAULT_SETTINGS.defaults, ...stored.defaults },
  };
}

/** A fresh secret for sealing replayed reasoning (256 bits). */
export const newSealingSecret = (): string => randomBytes(32).toString('base64url');
