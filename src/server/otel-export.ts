import type { Attributes } from '@opentelemetry/api';
import { redactText } from '../core/redact.js';
import type { ClientFormat } from '../formats/client-format.js';
import { FORMATS } from '../formats/registry.js';
import { batchedLog, redactEntry, type RequestLog, type RequestLogEntry } from './request-log.js';

/**
 * OpenTelemetry export of finished requests: one span per request and a child span per target
 * tried, named and attributed after the GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/), sent over OTLP/HTTP.
 *
 * It is one more request log (fanned out with the others), so the request path pays nothing more
 * than the `record` call; spans are built on the next turn of the event loop, batched and sent by
 * the SDK's BatchSpanProcessor. The @opentelemetry packages are optional dependencies, imported
 * only when export is turned on. No body and no key is ever an attribute: text that may carry
 * upstream or client words is redacted first.
 */

export interface OtelExportOptions {
  /** Where OTLP/HTTP JSON spans are posted (…/v1/traces). */
  tracesUrl: string;
  /** The backend's type for a backend name (openai-chat, anthropic, …), for gen_ai.provider.name. */
  backendType: (name: string) => string | undefined;
  serviceVersion: string;
  secrets?: () => Iterable<string>;
}

export interface OtelExport extends RequestLog {
  /** Sends every span still waiting, then stops (at shutdown). */
  shutdown(): Promise<void>;
}

/** The packages whose absence turns `--otel` into a message naming them. */
export const OTEL_PACKAGES = ['@opentelemetry/api', '@opentelemetry/sdk-trace', '@opentelemetry/resources', '@opentelemetry/exporter-trace-otlp-http'] as const;

/** The OTLP/HTTP default endpoint (https://opentelemetry.io/docs/specs/otel/protocol/exporter/). */
export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';

/**
 * The traces URL: `--otel URL` (a base URL, or one already ending in /v1/traces), else the standard
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is), else OTEL_EXPORTER_OTLP_ENDPOINT plus
 * /v1/traces, else the OTLP default; the precedence the OTLP exporter spec gives.
 */
export function resolveTracesUrl(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (given === undefined && env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return checkedUrl(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = given ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT || DEFAULT_OTLP_ENDPOINT);
  const name = given === undefined ? 'OTEL_EXPORTER_OTLP_ENDPOINT' : '--otel';
  const url = checkedUrl(base, name);
  return /\/v1\/traces\/?$/.test(new URL(url).pathname) ? url : `${url.replace(/\/+$/, '')}/v1/traces`;
}

function checkedUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${name}: expected an http:// or https:// URL, got '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`${name}: expected an http:// or https:// URL, got '${value}'`);
  return value;
}

/** gen_ai.provider.name for a backend type: the convention's well-known values, else the router's own. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = Object.assign(Object.create(null) as Record<string, string>, {
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
  offline: 'svc_router.offline',
});

/**
 * gen_ai.operation.name per endpoint: every client format's completion route is a `chat` (read
 * from the formats registry, so a new format's calls are model calls too); the other endpoints
 * (models, whoami, counts) are plain HTTP spans.
 */
const OPERATIONS: Readonly<Record<string, string>> = Object.assign(
  Object.create(null) as Record<string, string>,
  Object.fromEntries((FORMATS as readonly ClientFormat[]).flatMap((format) => format.routes.filter((route) => (route.serves ?? 'completion') === 'completion').map((route) => [route.name ?? format.name, 'chat']))),
);

export async function createOtelExport(options: OtelExportOptions): Promise<OtelExport> {
  const [api, sdk, resources, exporterModule] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const resource = resources.resourceFromAttributes({ 'service.name': 'svc-router', 'service.version': options.serviceVersion }).merge(
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, as every OpenTelemetry SDK honours them.
    resources.detectResources({ detectors: [resources.envDetector] }),
  );
  const exporter = new exporterModule.OTLPTraceExporter({ url: options.tracesUrl });
  const provider = new sdk.TracerProvider({ resource, spanProcessors: [new sdk.BatchSpanProcessor({ exporter, scheduledDelayMillis: scheduleDelay(process.env.OTEL_BSP_SCHEDULE_DELAY) })] });
  const tracer = provider.getTracer('svc-router', options.serviceVersion);
  const kinds = { server: api.SpanKind.SERVER, client: api.SpanKind.CLIENT };
  const codes = { error: api.SpanStatusCode.ERROR };
  const emit = (raw: RequestLogEntry, known: string[]): void => {
    const entry = redactEntry(raw, known);
    const end = entry.time;
    const start = end - entry.latencyMs;
    const span = tracer.startSpan(spanName(entry, known), { kind: kinds.server, startTime: start, attributes: requestAttributes(entry, options.backendType, known) });
    if (entry.status >= 400 || entry.error !== undefined) span.setStatus({ code: codes.error, ...(entry.error !== undefined ? { message: entry.error } : {}) });
    const parent = api.trace.setSpan(api.context.active(), span);
    // The trace keeps each attempt's duration, not its start: attempts ran one after another, so
    // they are laid end to end from the request's start (never past its end).
    let at = start;
    for (const target of entry.targets ?? []) {
      const attemptEnd = Math.min(at + target.latencyMs, end);
      const child = tracer.startSpan(
        `${OPERATIONS[entry.format ?? ''] ?? 'chat'} ${target.upstreamModel}`,
        { kind: kinds.client, startTime: at, attributes: attemptAttributes(entry, target, options.backendType) },
        parent,
      );
      if (target.outcome !== 'ok') child.setStatus({ code: codes.error, ...(target.error !== undefined ? { message: target.error } : {}) });
      child.end(attemptEnd);
      at = attemptEnd;
    }
    span.end(end);
  };

  const log = batchedLog((entries, known) => {
    for (const entry of entries) emit(entry, known);
  }, options);
  return {
    ...log,
    async shutdown() {
      log.flush();
      await provider.shutdown();
    },
  };
}

/** OTEL_BSP_SCHEDULE_DELAY (the SDK environment spec's batch delay, ms), else its 5 s default. */
function scheduleDelay(value: string | undefined): number {
  const ms = Number(value);
  return value !== undefined && Number.isFinite(ms) && ms >= 0 ? ms : 5_000;
}

/** `{operation} {model}` for model calls (the convention's span name), the HTTP method for the rest. */
function spanName(entry: RequestLogEntry, known: string[]): string {
  const operation = entry.format === undefined ? undefined : OPERATIONS[entry.format];
  if (operation === undefined || entry.model === undefined) return entry.method;
  return `${operation} ${redactText(entry.model, known, 200)}`;
}

export function requestAttributes(entry: RequestLogEntry, backendType: (name: string) => string | undefined, known: string[]): Attributes {
  const operation = entry.format === undefined ? undefined : OPERATIONS[entry.format];
  const provider = entry.backend === undefined ? undefined : providerName(entry.backend, backendType);
  const attributes: Attributes = {
    'http.request.method': entry.method,
    'url.path': redactText(entry.path, known, 500),
    'http.response.status_code': entry.status,
  };
  // The matched route's pattern, as the HTTP conventions name it (low cardinality: the route table's own paths).
  if (entry.endpoint !== undefined) attributes['http.route'] = entry.endpoint;
  if (operation !== undefined) attributes['gen_ai.operation.name'] = operation;
  if (provider !== undefined) {
    attributes['gen_ai.provider.name'] = provider;
    // The attribute gen_ai.provider.name replaced; collectors on older conventions still read it.
    attributes['gen_ai.system'] = provider;
  }
  if (entry.model !== undefined) attributes['gen_ai.request.model'] = redactText(entry.model, known, 200);
  if (entry.upstreamModel !== undefined) attributes['gen_ai.response.model'] = entry.upstreamModel;
  if (entry.inputTokens !== undefined) attributes['gen_ai.usage.input_tokens'] = entry.inputTokens;
  if (entry.outputTokens !== undefined) attributes['gen_ai.usage.output_tokens'] = entry.outputTokens;
  // error.type: a low-cardinality class; the HTTP status is the one the semantic conventions allow.
  if (entry.status >= 400) attributes['error.type'] = String(entry.status);
  else if (entry.aborted) attributes['error.type'] = 'client_aborted';
  if (entry.requestId !== undefined) attributes['svc_router.request_id'] = entry.requestId;
  if (entry.caller !== undefined) attributes['svc_router.caller'] = entry.caller;
  if (entry.format !== undefined) attributes['svc_router.format'] = entry.format;
  if (entry.backend !== undefined) attributes['svc_router.backend'] = entry.backend;
  if (entry.attempts !== undefined) attributes['svc_router.attempts'] = entry.attempts;
  if (entry.targets !== undefined) attributes['svc_router.targets'] = entry.targets.map((target) => `${target.backend}:${target.upstreamModel}/${target.outcome}`);
  if (entry.costNanoUsd !== undefined) attributes['svc_router.cost_usd'] = entry.costNanoUsd / 1e9;
  if (entry.stream !== undefined) attributes['svc_router.stream'] = entry.stream;
  if (entry.aborted) attributes['svc_router.aborted'] = true;
  // The GenAI conventions' name for a conversation's id: here the session's hash, never the id the client sent.
  if (entry.session !== undefined) attributes['gen_ai.conversation.id'] = entry.session;
  if (entry.sessionMoved !== undefined) attributes['svc_router.session_moved'] = entry.sessionMoved;
  // Every policy's note (redactEntry scrubbed them): a new policy's note needs no change here.
  if (entry.notes) for (const [name, note] of Object.entries(entry.notes)) attributes[`svc_router.note.${name}`] = note;
  return attributes;
}

function attemptAttributes(entry: RequestLogEntry, target: NonNullable<RequestLogEntry['targets']>[number], backendType: (name: string) => string | undefined): Attributes {
  const provider = providerName(target.backend, backendType);
  const attributes: Attributes = {
    'gen_ai.request.model': target.upstreamModel,
    'svc_router.backend': target.backend,
    'svc_router.outcome': String(target.outcome),
  };
  const operation = entry.format === undefined ? undefined : OPERATIONS[entry.format];
  if (operation !== undefined) attributes['gen_ai.operation.name'] = operation;
  if (provider !== undefined) {
    attributes['gen_ai.provider.name'] = provider;
    attributes['gen_ai.system'] = provider;
  }
  if (target.outcome !== 'ok') attributes['error.type'] = String(target.outcome);
  return attributes;
}

function providerName(backend: string, backendType: (name: string) => string | undefined): string | undefined {
  const type = backendType(backend);
  return type === undefined ? undefined : (PROVIDER_NAMES[type] ?? type);
}
