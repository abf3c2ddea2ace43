import type { PriceProvider } from '../catalog/index.js';
import type { BackendSettings } from '../config/settings.js';
import type { ClientSignal } from '../core/client-signal.js';
import type { ForwardedFrame, ForwardedReply } from '../core/forwarded.js';
import type { Reply } from '../core/reply.js';
import type { CanonicalRequest, FormatName } from '../core/request.js';
import type { StreamEvent } from '../core/stream-events.js';

export interface BackendCall {
  request: CanonicalRequest;
  /** The model name to send upstream (the route's, else the client's). */
  upstreamModel: string;
  signal: ClientSignal;
  /** The key to send, when the route picked one from the backend's key pool (else the backend's own). */
  apiKey?: string;
}

/**
 * A back door: encodes the canonical request for one kind of upstream, calls it, and decodes the
 * answer. Failures before any output are thrown as RouterErrors so the route can fall back.
 */
export interface Backend {
  /** The backend's configured name (`offline` for the built-in one). */
  readonly name: string;
  readonly offline?: boolean;
  /** The client wire format this backend's upstream speaks natively, if any (same-format forwarding). */
  readonly wireFormat?: FormatName;
  /**
   * For a backend that serves several wires (Vertex AI: Claude over Messages, Gemini over
   * Gemini's API), the one a model speaks; `wireFormat` is then left out. See wireFormatOf.
   */
  wireFormatFor?(upstreamModel: string): FormatName | undefined;
  /**
   * The upstream runs web search itself (Anthropic's server tool, OpenAI's hosted tool, Gemini's
   * Google Search grounding). A backend without it refuses a request that offers search, unless
   * the route names a search target, whose searches the router then runs for it (src/handlers/served-search.ts).
   */
  readonly nativeWebSearch?: boolean;
  complete(call: BackendCall): Promise<Reply>;
  /** The reply as batches of events: one batch per burst the upstream sent. */
  stream(call: BackendCall): AsyncIterable<StreamEvent[]>;
  /** The upstream's own reply, untranslated, for a client of its wireFormat (src/handlers/forward/). */
  readonly forward?: ForwardingBackend;
  /**
   * The upstream itself answers a refusal with a fallback model when the request asks for fallbacks
   * (Anthropic's server-side fallback, where the model takes it: src/catalog/); elsewhere the route's
   * next target does (src/handlers/declined.ts).
   */
  runsServerFallback?(upstreamModel: string): boolean;
}

/**
 * Same-format forwarding: the call as complete() and stream() make it, the reply as the upstream
 * sent it, read only by a tap for usage, errors and the end. Failures are thrown and error frames
 * noted as RouterErrors redacted exactly as complete() and stream() redact theirs.
 */
export interface ForwardingBackend {
  complete(call: BackendCall): Promise<ForwardedReply>;
  /**
   * The upstream's frames, one batch per burst, each with what the tap read of it. The last batch
   * ends with the frame noted `end` or `error`, or with `{ frame: undefined, note: { end: true } }`
   * when the upstream's body ended the stream well without a closing frame of its own.
   */
  stream(call: BackendCall): AsyncIterable<ForwardedFrame[]>;
}

/**
 * What a backend type is, said by its own folder (its definition.ts): how to load its module, and
 * what the rooms that never load it need to know of it. Light: it imports no code of the type, so
 * the CLI and a router that never names the type pay nothing for it.
 */
export interface BackendDefinition {
  /** The type's module, imported when a configured backend of the type is first used. */
  load(): Promise<BackendModule>;
  /** Where the price package lists the models this type's upstreams serve (prices and context windows). */
  priceProvider: PriceProvider;
}

/** The client wire format a backend's upstream speaks for a model: its own per model, else the backend's. */
export const wireFormatOf = (backend: Pick<Backend, 'wireFormat' | 'wireFormatFor'>, upstreamModel: string): FormatName | undefined => backend.wireFormatFor?.(upstreamModel) ?? backend.wireFormat;

/** What a backend folder's module exports: how to build one backend from its settings, and how to prove its key. */
export interface BackendModule {
  createBackend(name: string, settings: BackendSettings): Backend;
  /** The cheap authenticated call `doctor` makes; a type without one is checked by a connection only. */
  probe?: BackendProbe;
}

/**
 * How to prove a backend's key without spending tokens: the upstream's model list, which every
 * provider answers for free with the same authentication as a completion. `doctor` makes the call
 * and reads the answer with these; `doctor --live` adds a one-token completion through the backend.
 */
export interface BackendProbe {
  /** The model-list request for a configured base URL (no trailing slash) and key, authenticated and versioned as the backend's calls are. */
  modelList(baseUrl: string, key: string | undefined, settings?: Pick<BackendSettings, 'auth' | 'anthropicVersion' | 'apiVersion' | 'region' | 'awsProfile'>): { url: string; headers: Record<string, string> };
  /** The ids a model-list answer names, in the form a route target gives them; `complete` is false when more pages follow. */
  readModels(body: unknown): { ids: string[]; complete: boolean } | undefined;
  /** The id a target's upstream model has in the list, when the two forms differ. */
  listedAs?(upstreamModel: string): string;
  /** An answer that refuses the key with a status other than 401 or 403. */
  refusesKey?(status: number, body: unknown): boolean;
  /** The output cap of the live request, where the API refuses 1. */
  liveMaxOutputTokens?: number;
}
