import type { ClientSignal } from '../core/client-signal.js';
import type { RequestTrace } from '../core/request-record.js';
import type { RequestPhases } from '../core/request-phases.js';

export type { RequestTrace, TargetAttempt } from '../core/request-record.js';

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
  /**
   * The router's address as this client reaches it (`http://127.0.0.1:8787`), for a message that
   * names it (server only; src/server/router-address.ts).
   */
  origin?: () => string;
  /** The router's time per phase, its clock started when the request arrived (server only; dispatch starts one otherwise). */
  phases?: RequestPhases;
}

export type ApiResponse =
  | { status: number; headers?: Record<string, string>; json: unknown }
  /** `body`: a JSON body already written (a same-format upstream's reply, forwarded as it came). */
  | { status: number; headers?: Record<string, string>; body: string }
  /** `sse`: event-stream text in pieces of one or more whole frames, each piece meant for one write. */
  | { status: number; headers?: Record<string, string>; sse: AsyncIterable<string> }
  | { status: number; headers?: Record<string, string>; empty: true };
