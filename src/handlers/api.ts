import type { ClientSignal } from '../core/client-signal.js';

/**
 * A request and response as the handlers see them: no sockets, so the CLI can call the same
 * handlers in-process that the HTTP server calls over the network.
 */
export interface ApiRequest {
  method: string;
  /** The path without its query string. */
  path: string;
  /** The query string, without its `?` (absent or empty when there is none). */
  query?: string;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The parsed JSON body, no larger than `limitBytes`; read only after the request is authenticated. Throws 400 or 413. */
  readBody(limitBytes: number): Promise<unknown>;
  /** Aborted when the client goes away. */
  signal: ClientSignal;
  /** Filled in as the request passes through, for the request log and metrics (server only). */
  trace?: RequestTrace;
}

/** What the router learned about one request: who asked, for what, and who answered. Never a key or a prompt. */
export interface RequestTrace {
  requestId?: string;
  /** The endpoint's path (e.g. /v1/messages) once the path matched one. */
  endpoint?: string;
  /** The client format or endpoint name: chat, responses, messages, count_tokens, models, whoami. */
  format?: string;
  /** The caller's developer slug, once the key is accepted. */
  caller?: string;
  model?: string;
  /** The route's task rule that chose the targets, when one did. */
  rule?: string;
  backend?: string;
  upstreamModel?: string;
  attempts?: number;
  stream?: boolean;
  inputTokens?: number;
  outputTokens?: number;
  /** The request's cost in nano-dollars, when its price is known. */
  costNanoUsd?: number;
  /** Each target tried, in order, with what came of it: a fallback's failed first try stays visible. */
  targets?: TargetAttempt[];
  /** Where a failure moved the request's session (`heavy → light`, `pooled key 1 → key 2`): its upstream prompt cache starts again there. */
  sessionMoved?: string;
  /** The error message a failed request was answered with. */
  error?: string;
  /** What lay under that error (RouterError.cause): for the request log, which redacts it; never sent to the client. */
  cause?: unknown;
}

/** One call to one target of a route. */
export interface TargetAttempt {
  backend: string;
  upstreamModel: string;
  /** `ok`, or the HTTP status the router made of the failure. */
  outcome: 'ok' | number;
  latencyMs: number;
  /** The failure's message (redacted before it is written anywhere). */
  error?: string;
}

export type ApiResponse =
  | { status: number; headers?: Record<string, string>; json: unknown }
  /** `body`: a JSON body already written (a same-format upstream's reply, forwarded as it came). */
  | { status: number; headers?: Record<string, string>; body: string }
  /** `sse`: event-stream text in pieces of one or more whole frames, each piece meant for one write. */
  | { status: number; headers?: Record<string, string>; sse: AsyncIterable<string> }
  | { status: number; headers?: Record<string, string>; empty: true };
