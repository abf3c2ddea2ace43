import type { RouterError } from '../core/errors.js';
import type { ForwardedFrame } from '../core/forwarded.js';
import type { ModelIds } from '../core/model-names.js';
import type { Reply } from '../core/reply.js';
import type { CanonicalRequest, FormatName, ReasoningEffort } from '../core/request.js';
import type { StreamEvent } from '../core/stream-events.js';
import type { KeySource } from '../identity/authenticate.js';

/** What a client request decodes to: the canonical request plus what only its own format needs. */
export interface Decoded<Options = unknown> {
  request: CanonicalRequest;
  stream: boolean;
  options: Options;
  /** Built-in tools a translating backend cannot run: left out upstream there and listed in svc_meta (a same-format upstream gets them). */
  droppedTools?: string[];
  /** The media type of the streamed reply when it is not server-sent events (Gemini's stream as one JSON array: `application/json`). */
  streamMediaType?: string;
}

/** What decoding may need beyond the body: the secret that seals replayed reasoning, and the request around the body. */
export interface DecodeContext {
  secret: string;
  /** Header names in lower case. */
  headers?: Readonly<Record<string, string | undefined>>;
  /** The values of the route's `{name}` path segments (e.g. the model in a path). */
  params?: Readonly<Record<string, string>>;
  /** The query string, parsed. */
  query?: URLSearchParams;
}

/** The router's own report on a request, attached to chat and responses bodies as `svc_meta`. */
export interface SvcMeta {
  request_id: string;
  sku: string;
  backend: string;
  upstream_model: string;
  offline?: true;
  attempts: number;
  /** The route's task rule that chose the targets, when one did. */
  rule?: string;
  latency_ms: number;
  usage: { input_tokens: number; output_tokens: number; total_tokens: number };
  /** Tokens left under the caller's cap after this request (the usage cap's policy writes it). */
  remaining_tokens?: number;
  /** What the request cost in US dollars, from the upstream model's price; null when that price is not known. */
  cost_usd?: number | null;
  dropped_tools?: string[];
  /** What was not honoured as asked: settings a backend has no counterpart for, parts of a reply a format cannot carry. */
  warnings?: string[];
}

export interface EncodeContext<Options = unknown> {
  requestId: string;
  /** The model the client asked for, echoed back as the reply's model. */
  model: string;
  /** Unix seconds. */
  created: number;
  options: Options;
  request: CanonicalRequest;
  /** Seals reasoning the client must replay (the same secret as DecodeContext). */
  secret: string;
  /** The client format the answering upstream speaks, when it speaks one: it then got the client's own body. */
  readonly upstreamWireFormat?: FormatName;
  /** The upstream model that answered: what reasoning the client must replay records as its writer. */
  readonly upstreamModel?: string;
  /**
   * svc_meta for the final body or chunk. The pipeline records the reply's usage (once) when it
   * sees the reply or the stream's `finish` event, before handing either to the encoder; reading
   * it records nothing.
   */
  svcMeta(): SvcMeta;
}

/** Headers in lower case, as a request carries them. */
export type Headers = Readonly<Record<string, string | undefined>>;

/** One path a format serves. */
export interface FormatRoute {
  readonly method: 'GET' | 'POST';
  /**
   * An exact path (`/v1/messages`), or a pattern whose `{name}` segments match one path segment
   * each (`/v1beta/models/{model}:generateContent`); the values reach the decoder as `params`, the
   * query string as `query`.
   */
  readonly path: string;
  /** A short name for logs and metrics; the format's name when left out. */
  readonly name?: string;
  /** What serves it (src/handlers/format-routes.ts picks the handler); the completion pipeline in this format when left out. */
  readonly serves?: RouteService;
}

/**
 * What a format's route may serve, named so that a format needs no handler: `completion` (the
 * pipeline, in the route's format), `count-tokens` (Anthropic's token counting, on messages),
 * `input-tokens` (OpenAI's Responses token counting), `compact` (Responses compaction), `count`
 * (token counting in the format's own shape, by its `count`), `models` and `model` (the model list
 * and one model, `{model}` in the path, in the format's `models` shape, for a format whose models
 * live at paths of its own).
 */
export type RouteService = 'completion' | 'count-tokens' | 'input-tokens' | 'compact' | 'count' | 'models' | 'model';

/** What a format's clients are told when a request's path shows their base URL is wrong (`/v1` left out, twice, or behind something else). */
export interface BaseUrlAdvice {
  /** Which clients take which base URL, for the router at `origin` (`http://127.0.0.1:8787`): "OpenAI-style clients take http://…/v1 as their base URL". */
  take(origin: string): string;
  /**
   * The answer's status when not 404: for a format whose clients read every 404 on its path as
   * something else, and would never show the fix (Claude Code takes a 404 on /v1/messages for a
   * missing model, and shows a 400's message word for word).
   */
  status?: 400;
}

/** What a format's clients are told when a request's path shows their base URL is wrong (`/v1` left out, twice, or behind something else). */
export interface BaseUrlAdvice {
  /** Which clients take which base URL, for the router at `origin` (`http://127.0.0.1:8787`): "OpenAI-style clients take http://…/v1 as their base URL". */
  take(origin: string): string;
  /**
   * The answer's status when not 404: for a format whose clients read every 404 on its path as
   * something else, and would never show the fix (Claude Code takes a 404 on /v1/messages for a
   * missing model, and shows a 400's message word for word).
   */
  status?: 400;
}

/** A header every request of a format must carry (e.g. `anthropic-version`). */
export interface RequiredHeader {
  readonly name: string;
  /** Other names accepted for it. */
  readonly aliases?: readonly string[];
  /** What a valid value looks like, for the error message: "a date such as 2023-06-01". */
  readonly expected: string;
  readonly example: string;
  valid(value: string): boolean;
}

/** How GET /v1/models and /v1/models/{id} answer a client of this format. */
export interface ModelsShape {
  /** Whether a request to the shared models endpoints comes from a client of this format; `query` is its query string (without `?`). */
  claims(headers: Headers, query?: string): boolean;
  /** `contextWindow` gives a listed model's window in tokens, where one is known; `reasoningLevels` the effort levels its route's model takes. */
  list(ids: readonly string[], headers: Headers, contextWindow?: (id: string) => number | undefined, reasoningLevels?: (id: string) => readonly ReasoningEffort[] | undefined): unknown;
  entry(id: string, contextWindow?: (id: string) => number | undefined): unknown;
}

/**
 * Token counting in a format's own shape (a route that `serves: 'count'`): the body decoded as the
 * request it counts, and the count as the format answers it. The count is the route's upstream's
 * where its server counts, else the router's estimate (src/handlers/count-tokens.ts).
 */
export interface FormatCounter {
  decode(body: unknown, context: DecodeContext): CanonicalRequest;
  reply(count: number, request: CanonicalRequest): unknown;
}

/**
 * A front door: one client wire format, decoded to and encoded from the canonical form, with
 * everything the server needs to serve it. Each format folder exports one; src/formats/registry.ts
 * lists them.
 */
export interface ClientFormat<Options = unknown> {
  /** The format's name: `svc_meta`, logs, metrics, and same-format forwarding (a backend's wireFormat). */
  readonly name: string;
  readonly routes: readonly FormatRoute[];
  /** Where a client of this format sends its key, in the order they are read. */
  readonly keySources: readonly KeySource[];
  readonly requiredHeaders?: readonly RequiredHeader[];
  /** Client headers forwarded as they are to a same-format upstream (e.g. `anthropic-beta`), in `forwardBody.headers`. */
  readonly forwardHeaders?: readonly string[];
  readonly models: ModelsShape;
  readonly modelIds?: ModelIds;
  /** What a route that `serves: 'count'` counts and answers. */
  readonly count?: FormatCounter;
  decode(body: unknown, context: DecodeContext): Decoded<Options>;
  encodeReply(reply: Reply, context: EncodeContext<Options>): unknown;
  /** One piece of text per batch of events, so a burst leaves in one write. */
  encodeStream(batches: AsyncIterable<StreamEvent[]>, context: EncodeContext<Options>): AsyncIterable<string>;
  /** The body of every error of this format, also used as the data of an in-stream error event. */
  errorBody(error: RouterError, requestId: string): unknown;
  /** Same-format forwarding: how a reply from an upstream of this format reaches its client (src/handlers/forward/). */
  readonly forward?: FormatForwarder<Options>;
  /** What its clients are told when their base URL is wrong; OpenAI-style advice when left out (src/formats/shared/base-url.ts). */
  readonly baseUrl?: BaseUrlAdvice;
}

/**
 * The client's side of same-format forwarding: the upstream's reply as it came, with the model the
 * client asked for and svc_meta where this format puts it.
 */
export interface FormatForwarder<Options = unknown> {
  /** Whether this request's reply may pass untranslated (cheap: read from what the decoder kept). */
  allows(decoded: Decoded<Options>): boolean;
  /** The JSON reply's text for the client. */
  reply(text: string, context: EncodeContext<Options>): string;
  /**
   * One stream's encoder for the client: called with each batch of frames in turn, up to and
   * including the one noted `end` or `error` (the pipeline hands on nothing after it), it gives the
   * text for that batch ('' for none). Synchronous, so a batch passes no promise of its own on its
   * way to the socket. Usage is recorded before the batch with the end is encoded, so svcMeta() may
   * be read there.
   */
  stream(context: EncodeContext<Options>): (batch: ForwardedFrame[]) => string;
}
