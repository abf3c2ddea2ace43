import type { RouterError } from '../core/errors.js';
import type { Reply, Usage } from '../core/reply.js';
import type { CanonicalRequest } from '../core/request.js';
import type { StreamEvent } from '../core/stream-events.js';
import type { Endpoint } from '../routing/resolve-route.js';

/** What a client request decodes to: the canonical request plus what only its own format needs. */
export interface Decoded<Options = unknown> {
  request: CanonicalRequest;
  stream: boolean;
  options: Options;
  /** Built-in tools a translating backend cannot run: left out upstream there and listed in svc_meta (a same-format upstream gets them). */
  droppedTools?: string[];
}

/** What decoding may need beyond the body: the secret that seals replayed reasoning. */
export interface DecodeContext {
  secret: string;
}

/** The router's own report on a request, attached to chat and responses bodies as `svc_meta`. */
export interface SvcMeta {
  request_id: string;
  sku: string;
  backend: string;
  upstream_model: string;
  offline?: true;
  attempts: number;
  latency_ms: number;
  usage: { input_tokens: number; output_tokens: number; total_tokens: number };
  remaining_tokens: number;
  dropped_tools?: string[];
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
  /** Records the request's usage (once) and returns svc_meta for the final body or chunk. */
  finish(usage: Usage): SvcMeta;
}

/** A front door: one client wire format, decoded to and encoded from the canonical form. */
export interface ClientFormat<Options = unknown> {
  readonly endpoint: Endpoint;
  decode(body: unknown, context: DecodeContext): Decoded<Options>;
  encodeReply(reply: Reply, context: EncodeContext<Options>): unknown;
  /** One piece of text per batch of events, so a burst leaves in one write. */
  encodeStream(batches: AsyncIterable<StreamEvent[]>, context: EncodeContext<Options>): AsyncIterable<string>;
  /** The body of an error, also used as the data of an in-stream error event. */
  errorBody(error: RouterError, requestId: string): unknown;
}
