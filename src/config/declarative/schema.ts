/**
 * The declarative routing file: what a team commits to a repository or hands to a colleague, and
 * what several routers read to agree. This zod schema is its one source: the TypeScript type, the
 * validation and the published JSON Schema (schema/svc-router.schema.json) all derive from it.
 *
 * Secrets never appear in the file: each is named by the environment variable that holds it, in a
 * field whose name ends in `Env` (`apiKeyEnv`, `sealingSecretEnv`), read where the router runs.
 */

import { z } from 'zod';
import { BACKEND_TYPES, type BackendType } from '../../core/backend-types.js';
import { CHAT_PROFILE_NAMES } from '../../core/chat-profiles.js';
import { HEADER_NAME } from '../../core/header-name.js';
import { HOST_NAME_PATTERN, ORIGIN_PATTERN, parseHostName, parseOrigin } from '../../core/host-names.js';
import { SLUG_PATTERN } from '../../core/router-keys.js';
import { ANTHROPIC_AUTHS, KEY_POOL_STRATEGIES, SECRETS_MODES, type AnthropicAuth, type KeyPoolStrategy, type SecretsMode } from '../settings.js';
import { ANTHROPIC_VERSION_FORMAT, GEMINI_API_VERSION_FORMAT } from '../type-settings.js';
import { CREDENTIAL_HEADERS } from './placement.js';

/** Backend names as `backends add` accepts them: they appear in targets before a `:`. */
export const BACKEND_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/;
/** An environment variable's name, as POSIX shells accept it. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Characters a routable model name may hold (routing/resolve-route.ts decides which names route). */
const MODEL_NAME = /^[\w.*:-]+$/;

const envName = (what: string) => z.string().regex(ENV_NAME).meta({ description: `Name of the environment variable that holds ${what} (never the value itself).` });
const milliseconds = (what: string) => z.int().positive().meta({ description: `${what}, in milliseconds.` });
/** `config set` bounds the server's waits at a day (timers cannot wait much longer). */
const serverMilliseconds = (what: string) => z.int().positive().max(86_400_000).meta({ description: `${what}, in milliseconds (at most a day).` });

const timeoutsSchema = z
  .strictObject({
    connectMs: milliseconds('Time to open the TCP/TLS connection').optional(),
    firstByteMs: milliseconds('Time from sending the request to the response headers').optional(),
    idleMs: milliseconds('Longest pause between two body chunks, streamed or not').optional(),
    totalMs: milliseconds('Longest a non-streamed call may take, connecting included').optional(),
  })
  .meta({ description: 'Limits on waiting for the upstream.' });

const backendSchema = z
  .strictObject({
    type: z.enum(BACKEND_TYPES).meta({ description: 'The wire format the upstream speaks.' }),
    baseUrl: z.url({ protocol: /^https?$/ }).meta({ description: 'The upstream base URL, e.g. https://api.openai.com/v1.' }),
    apiKeyEnv: envName("the upstream's API key").optional(),
    headers: z
      .record(z.string().regex(HEADER_NAME), z.string().regex(/^[^\r\n\0]*$/))
      .meta({ description: 'Extra headers sent upstream (no credentials: those go in apiKeyEnv).' })
      .optional(),
    timeouts: timeoutsSchema.optional(),
    keyPool: z
      .strictObject({
        strategy: z.enum(KEY_POOL_STRATEGIES as [KeyPoolStrategy, ...KeyPoolStrategy[]]).meta({ description: 'round-robin: each call the next key; fill-first: the first key until it rests.' }),
        keys: z.array(z.strictObject({ apiKeyEnv: envName('one key of the pool') })).min(1),
        rateLimitCooldownMs: milliseconds('How long a key rests after a 429 that says nothing of when to retry').optional(),
        paymentCooldownMs: milliseconds('How long a key rests after a 402 that says nothing of when to retry').optional(),
      })
      .meta({ description: 'Several upstream keys used in turn; a key refused with 429/402 rests and the next is used (docs/teams.md).' })
      .optional(),
    cacheControl: z
      .boolean()
      .meta({ description: "openai-chat only: the upstream takes Anthropic-style cache_control on content parts (OpenRouter's Anthropic and Gemini models), so prompt-cache breakpoints are sent to it." })
      .optional(),
    auth: z
      .enum(ANTHROPIC_AUTHS as [AnthropicAuth, ...AnthropicAuth[]])
      .meta({ description: 'anthropic only: how the key is sent, x-api-key (the default) or bearer (Authorization: Bearer KEY, and no x-api-key).' })
      .optional(),
    anthropicVersion: z
      .string()
      .regex(ANTHROPIC_VERSION_FORMAT)
      .meta({ description: "anthropic only: the anthropic-version every call sends, in place of the client's (e.g. 2023-06-01)." })
      .optional(),
    apiVersion: z
      .string()
      .regex(GEMINI_API_VERSION_FORMAT)
      .meta({ description: 'gemini only: the API version in the path, v1beta (the default) or v1, v1alpha.' })
      .optional(),
    project: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/)
      .meta({ description: 'vertex only: the Google Cloud project whose Vertex AI serves the models.' })
      .optional(),
    region: z
      .string()
      .regex(/^[a-z0-9-]{1,40}$/)
      .meta({ description: 'vertex: the Vertex AI location in the model path, e.g. us-east5, europe-west1, global; bedrock: the AWS region of the endpoint and the signature, e.g. us-east-1 (else $AWS_REGION).' })
      .optional(),
    credentials: z
      .string()
      .min(1)
      .meta({ description: 'vertex only: a service-account key file (JSON) for Google access tokens; without it $GOOGLE_APPLICATION_CREDENTIALS, else the metadata server.' })
      .optional(),
    profile: z
      .enum(CHAT_PROFILE_NAMES)
      .meta({ description: "openai-chat only: the provider whose own rules the backend follows: reasoning sent back as it requires, fields it refuses left out with a warning (docs/coding-agents.md)." })
      .optional(),
    awsProfile: z
      .string()
      .min(1)
      .meta({ description: 'bedrock only: the profile of the shared AWS config and credentials files to sign with (else $AWS_PROFILE, then default).' })
      .optional(),
    websocket: z
      .boolean()
      .meta({ description: "openai-responses only: streamed turns go over the upstream's WebSocket mode (GET {baseUrl}/responses upgraded), one socket per client session, each turn sending only its new input plus previous_response_id; HTTP when the upstream refuses the upgrade (docs/performance.md)." })
      .optional(),
    providerRouting: z
      .looseObject({
        order: z.array(z.string()).optional(),
        allow_fallbacks: z.boolean().optional(),
        only: z.array(z.string()).optional(),
        ignore: z.array(z.string()).optional(),
        sort: z.string().optional(),
        require_parameters: z.boolean().optional(),
        data_collection: z.enum(['allow', 'deny']).optional(),
      })
      .meta({ description: "profile openrouter only: OpenRouter's provider routing object (order, allow_fallbacks, only, ignore, sort, …), sent with every request." })
      .optional(),
  })
  .meta({ description: 'An upstream backend.' });

const guardrailsSchema = z.strictObject({
  secrets: z
    .enum(SECRETS_MODES as [SecretsMode, ...SecretsMode[]])
    .meta({ description: "Credentials in a request's text: off, warn (x-svc-warning names kind and place), mask (placeholders before any upstream sees them) or refuse (400 guardrail_refused)." })
    .optional(),
});

const perMinute = (what: string) => z.int().positive().meta({ description: `${what} per minute, across every router sharing the usage store.` });

const taskRuleSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/).meta({ description: 'Named in svc_meta.rule and the request log when it chose the targets.' }),
    when: z
      .strictObject({
        background: z.boolean().meta({ description: 'The client asked for a small model (*haiku*).' }).optional(),
        thinking: z.boolean().meta({ description: 'Thinking is on (a budget, or an effort above minimal).' }).optional(),
        contextAbove: z.int().positive().meta({ description: 'The estimated input is above this many tokens.' }).optional(),
        image: z.boolean().meta({ description: 'An image is in the conversation.' }).optional(),
        webSearch: z.boolean().meta({ description: 'The request offers a web search tool.' }).optional(),
        model: z.string().regex(MODEL_NAME).meta({ description: "The client's model name matches this '*' pattern." }).optional(),
      })
      .meta({ description: 'Every condition given must hold.' }),
    targets: z.array(z.string().min(1)).min(1),
  })
  .meta({ description: 'A task rule: matching requests go to its targets.' });

const keySchema = z
  .strictObject({
    developer: z.string().min(1),
    organisation: z.string().min(1),
    tier: z.string().min(1),
    capTokens: z.int().positive(),
    hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .meta({ description: 'SHA-256 of the key, hex: the key itself is never stored.' }),
    hint: z.string().meta({ description: "The key's first characters, to tell keys apart in listings." }),
    createdAt: z.iso.datetime(),
    rateLimit: z
      .strictObject({ requestsPerMinute: perMinute('Requests').optional(), tokensPerMinute: perMinute('Input plus output tokens').optional() })
      .meta({ description: "The key's rate limits." })
      .optional(),
  })
  .meta({ description: "An issued key's identity, found by the hash of the key a client sends." });

const NOT_A_HOST = 'expected a host name or IP address without a port, e.g. router.example.com';
const NOT_AN_ORIGIN = 'expected an origin (scheme://host[:port], nothing after), e.g. https://app.example.com';

const serverSchema = z
  .strictObject({
    host: z.string().min(1).meta({ description: 'Address serve binds to (read when serve starts).' }).optional(),
    port: z.int().min(0).max(65_535).meta({ description: 'Port serve listens on (0 picks a free one; read when serve starts).' }).optional(),
    bodyLimitBytes: z.int().positive().meta({ description: 'Largest request body accepted (413 past it).' }).optional(),
    metrics: z.boolean().meta({ description: 'Serve Prometheus metrics on GET /metrics (read when serve starts).' }).optional(),
    bodyTimeoutMs: serverMilliseconds('From request headers to the end of the body (read when serve starts)').optional(),
    headersTimeoutMs: serverMilliseconds('To receive request headers (read when serve starts)').optional(),
    maxConnections: z.int().positive().meta({ description: 'Open client connections allowed (read when serve starts).' }).optional(),
    ui: z.boolean().meta({ description: 'Serve the dashboard at /ui (read when serve starts; serve --ui turns it on too).' }).optional(),
    websockets: z.boolean().meta({ description: 'Take Responses over WebSocket on GET /v1/responses (default true); off, an upgrade gets 426 and clients such as Codex stay on HTTP.' }).optional(),
    socketStreams: z.int().positive().meta({ description: 'Named streams (stream_id) one Responses socket may run (default 32); a create naming one more gets an error event.' }).optional(),
    socketTurnsPerStream: z.int().positive().meta({ description: 'Completed responses a socket keeps per named stream for previous_response_id and forks (default 32).' }).optional(),
    socketKeptBytes: z.int().positive().meta({ description: 'Bytes of conversation a Responses socket keeps across its streams (default 64 MiB); the oldest response goes first past it.' }).optional(),
    otel: z
      .boolean()
      .meta({ description: 'Export an OpenTelemetry span per request over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (read when serve starts; serve --otel [URL] turns it on too).' })
      .optional(),
    requestLogDays: z.int().positive().meta({ description: 'Days the searchable request log (svc-router logs) keeps a request (read when serve starts).' }).optional(),
    requestLogMaxBytes: z.int().positive().meta({ description: 'Bytes the searchable request log may take on disk, both generations together (read when serve starts).' }).optional(),
    tls: z
      .strictObject({
        cert: z.string().min(1).meta({ description: 'Path of the PEM certificate (its chain after it).' }),
        key: z.string().min(1).meta({ description: "Path of the certificate's PEM private key (a path: the key itself never goes in this file)." }),
      })
      .meta({ description: 'Serve HTTPS with these files (read when serve starts; serve --tls-cert/--tls-key override).' })
      .optional(),
    hosts: z
      .array(
        z
          .string()
          .regex(HOST_NAME_PATTERN, { message: NOT_A_HOST, abort: true })
          .refine((name) => parseHostName(name) !== undefined, { message: NOT_A_HOST }),
      )
      .meta({
        description:
          'Names the dashboard, /admin/* and /metrics answer to in the Host header, besides the loopback names (bound to loopback or to every interface) or the address bound; any other Host gets 403. For a reverse proxy or a DNS name, e.g. ["router.example.com"].',
      })
      .optional(),
    cors: z
      .array(z.string().regex(ORIGIN_PATTERN, { message: NOT_AN_ORIGIN, abort: true }).refine((origin) => parseOrigin(origin) !== undefined, { message: NOT_AN_ORIGIN }))
      .meta({ description: 'Origins (scheme://host[:port]) whose browser pages may call the model endpoints: preflights are answered and answers carry CORS headers. Empty: no CORS.' })
      .optional(),
  })
  .meta({ description: 'How serve listens; `serve --host/--port` override these.' });

const dollarsPerMillion = (what: string) => z.number().nonnegative().meta({ description: `${what}, in US dollars per million tokens.` });
const rates = {
  input: dollarsPerMillion('Uncached input'),
  output: dollarsPerMillion('Output'),
  cacheRead: dollarsPerMillion('Input read from the prompt cache').optional(),
  cacheWrite: dollarsPerMillion('Input written to the prompt cache').optional(),
};
const priceSchema = z
  .strictObject({
    ...rates,
    longContext: z
      .strictObject({ aboveInputTokens: z.int().nonnegative().meta({ description: 'The rates below apply to a whole request whose input passes this.' }), ...rates })
      .optional(),
  })
  .meta({ description: "A model's price; a rate left out means unknown, and a request that needs it gets no cost rather than a wrong one." });

export const declarativeSchema = z
  .strictObject({
    $schema: z.string().meta({ description: 'Where editors find this schema.' }).optional(),
    backends: z
      .record(z.string().regex(BACKEND_NAME), backendSchema)
      .meta({ description: 'Upstream backends by name. When present, replaces the backends stored by `backends add`.' })
      .optional(),
    routes: z
      .record(z.string().regex(MODEL_NAME), z.array(z.string().min(1)).min(1))
      .meta({
        description:
          "Model name or pattern (svc.intelligent-pro, claude-*) → targets BACKEND[:UPSTREAM_MODEL] in fallback order; 'offline' is the built-in backend. When present, replaces the stored routes.",
      })
      .optional(),
    routePolicies: z
      .record(
        z.string().regex(MODEL_NAME),
        z.strictObject({
          rules: z.array(taskRuleSchema).meta({ description: 'Tried in order; the first that matches picks the chain.' }).optional(),
          weights: z
            .record(z.string().min(1), z.int().positive())
            .meta({ description: 'Target → weight: which weighted target leads the chain for each new session, and for each request that names none (smooth weighted round-robin).' })
            .optional(),
          guardrails: guardrailsSchema.meta({ description: "This route's guardrails, over the router's." }).optional(),
          search: z
            .string()
            .min(1)
            .meta({ description: 'BACKEND[:UPSTREAM_MODEL] with web search of its own (anthropic, openai-responses, gemini): it runs the searches of requests that offer web search when the answering target has none.' })
            .optional(),
        }),
      )
      .meta({ description: 'Route name (as in routes) → its task rules, weights, guardrails and search target. When present, replaces the stored ones.' })
      .optional(),
    routing: z
      .strictObject({
        sessionHeader: z
          .string()
          .regex(HEADER_NAME)
          .refine((name) => !CREDENTIAL_HEADERS.has(name.toLowerCase()), { message: 'a credential header does not name a session' })
          .meta({
            description:
              "A request header naming the client's session, read before x-claude-code-session-id, Codex's session-id, prompt_cache_key and metadata.user_id: one session's requests stay on one target and one pooled key while those answer (docs/teams.md).",
          })
          .optional(),
      })
      .meta({ description: "How requests are routed beyond each route's own chain." })
      .optional(),
    limits: z
      .strictObject({
        outputReserveTokens: z.int().positive().meta({ description: 'Output held against the cap for a request that sets no max output tokens.' }).optional(),
        reservationTtlMs: serverMilliseconds('How long a cap reservation outlives a router that died before settling it').optional(),
        session: z
          .strictObject({
            tokens: z.int().positive().meta({ description: 'Input plus output tokens one session may use.' }).optional(),
            usd: z.number().positive().meta({ description: "US dollars one session may spend, at the prices its usage is billed at." }).optional(),
          })
          .meta({ description: "A cap on each client session (as session affinity names it); its requests past it get a 429. A session idle for an hour starts again." })
          .optional(),
      })
      .meta({ description: 'How the usage cap holds as a ceiling, and the per-session cap (docs/teams.md).' })
      .optional(),
    guardrails: guardrailsSchema.meta({ description: 'Guardrails on what requests send upstream; off until set.' }).optional(),
    notify: z
      .strictObject({
        webhook: z
          .url({ protocol: /^https?$/ })
          .meta({ description: 'A URL without a token, sent one JSON POST per threshold (50, 80, 100 % of a key\'s 30-day cap) per key per 30 days; a URL holding a token goes in webhookEnv.' })
          .optional(),
        webhookEnv: envName('the webhook URL, when it holds a token').optional(),
      })
      .meta({ description: "Where a key's crossing of 50, 80 and 100 % of its 30-day cap is announced (docs/teams.md)." })
      .optional(),
    safeguards: z
      .strictObject({
        classifier: z
          .string()
          .regex(/^[\w.:-]+$/)
          .meta({ description: "The route asked whether each of Claude Code's tool calls is dangerous, on routes whose upstream gives auto mode no verdict (e.g. svc.intelligent-lite). Unset: no verdicts, and Claude Code asks the user." })
          .optional(),
        timeoutMs: serverMilliseconds('Longest wait for one verdict, from the end of its tool call (default 20000)').optional(),
      })
      .meta({ description: "Safety verdicts for Claude Code's auto mode on routes whose upstream gives none (docs/coding-agents.md)." })
      .optional(),
    contextWindows: z
      .record(z.string().min(1), z.int().positive())
      .meta({
        description:
          "Context windows in tokens by route name (svc.intelligent-pro, claude-*) or target BACKEND:UPSTREAM_MODEL, over the known model families' defaults; clients are told them (connect, the Codex catalog). When present, replaces the stored windows.",
      })
      .optional(),
    keys: z
      .record(z.string().regex(SLUG_PATTERN), keySchema)
      .meta({ description: 'Issued keys by developer slug (hashes only). When present, replaces the stored keys, so routers sharing the file accept the same keys.' })
      .optional(),
    prices: z
      .record(z.string().min(1), priceSchema)
      .meta({ description: 'Prices by upstream model name (gpt-4.1) or BACKEND:MODEL, over the shipped defaults. When present, replaces the stored prices.' })
      .optional(),
    sealingSecretEnv: envName('the secret that seals reasoning clients replay; routers behind one load balancer must share it').optional(),
    server: serverSchema.optional(),
    usage: z
      .strictObject({
        store: z
          .string()
          .regex(/^(?:file|(?:rediss?|redis[-+]sentinel):\/\/\S+)$/)
          .meta({
            description:
              "Where usage is recorded: 'file', or redis://HOST:PORT (rediss:// for TLS) to share it between routers, or redis-sentinel://HOST:PORT[,HOST:PORT…]/MASTER[?db=N] to reach a primary with replicas through its sentinels; a password does not belong here (read when serve starts).",
          })
          .optional(),
      })
      .optional(),
    defaults: z
      .strictObject({
        organisation: z.string().min(1).optional(),
        tier: z.string().min(1).optional(),
        capTokens: z.int().positive().optional(),
      })
      .meta({ description: 'What new keys are given.' })
      .optional(),
  })
  .meta({ title: 'svc-router configuration', description: 'Backends, routes and limits for svc-router; secrets only by environment-variable name.' });

export type DeclarativeConfig = z.infer<typeof declarativeSchema>;
