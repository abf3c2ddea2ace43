/**
 * A request and response as the handlers see them: no sockets, so the CLI can call the same
 * handlers in-process that the HTTP server calls over the network.
 */
export interface ApiRequest {
  method: string;
  /** The path without its query string. */
  path: string;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The parsed JSON body; read only after the request is authenticated. Throws 400 or 413. */
  readBody(): Promise<unknown>;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export type ApiResponse =
  | { status: number; headers?: Record<string, string>; json: unknown }
  | { status: number; headers?: Record<string, string>; sse: AsyncIterable<string> }
  | { status: number; headers?: Record<string, string>; empty: true };
