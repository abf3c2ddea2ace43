import { performance } from 'node:perf_hooks';
import type { RequestLogEntry, RequestTrace } from '../core/request-record.js';
import type { App } from '../handlers/app.js';
import type { HttpServerOptions } from './http-server.js';

/** A finished request into the metrics and the request log. */
export function recordRequest(
  app: App,
  { requestLog, metrics }: HttpServerOptions,
  trace: RequestTrace,
  bodies: { request?: unknown; response?: unknown } | undefined,
  request: { startedAt: number; method: string; path: string; status: number; aborted: boolean },
): void {
  const latencyMs = performance.now() - request.startedAt;
  metrics?.observe(trace, request.status, latencyMs / 1000, () => app.config.read());
  if (!requestLog) return;
  // The trace completes into the log entry: one record, never a copy of it that could drop a field.
  const entry = trace as RequestLogEntry;
  entry.time = Date.now();
  entry.method = request.method;
  entry.path = request.path;
  entry.status = request.status;
  entry.latencyMs = Math.round(latencyMs);
  if (request.aborted) entry.aborted = true;
  if (bodies?.request !== undefined) entry.requestBody = bodies.request;
  if (bodies?.response !== undefined) entry.responseBody = bodies.response;
  requestLog.record(entry);
}

