/**
 * The one record of a request: the pipeline fills it in as the request passes (the trace), the
 * HTTP layer completes it with the status and the time taken, and that same object is what the
 * request log, the stored line, the dashboard's feed and the OpenTelemetry export read. Never a
 * key or a prompt (bodies only when the log was asked for them, redacted when written).
 */

/** What the router learned about one request on its way: who asked, for what, and who answered. */
export interface RequestTrace {
  requestId?: string;
  /** The endpoint's path pattern (e.g. /v1/messages) once the path matched one. */
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
  /**
   * What the request's policies (src/policies/) had to say, by policy name: a guardrail's verdict,
   * never the value it found. Every reader shows the whole map, so a new policy's note needs no
   * change to any of them.
   */
  notes?: Record<string, string>;
  /**
   * The request's session, when it names one (src/routing/session-key.ts): the hash it is kept
   * under, never the id the client sent. `svc-router sessions` and `logs --session` name it so.
   */
  session?: string;
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

/** A finished request: its trace, completed by the HTTP layer. */
export interface RequestLogEntry extends RequestTrace {
  /** When the response finished, ms since the epoch. */
  time: number;
  method: string;
  /** Without the query string. */
  path: string;
  status: number;
  latencyMs: number;
  /** The client went away before the response was complete. */
  aborted?: boolean;
  requestBody?: unknown;
  responseBody?: unknown;
}
