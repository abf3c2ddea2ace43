import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Backend, ForwardingBackend } from '../backends/backend.js';
import { RouterError } from '../core/errors.js';
import { ROUTER_PHASES, type RequestPhases } from '../core/request-phases.js';
import type { StreamEvent } from '../core/stream-events.js';
import type { ForwardedFrame } from '../core/forwarded.js';
import type { RequestTrace } from '../handlers/api.js';
import type { Settings } from '../config/settings.js';
import { OTHER_ROUTE, routeLabel } from '../routing/resolve-route.js';
import { ENDPOINTS } from './endpoints.js';

/** Seconds; from a cached answer to a long agent turn streamed in full. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** Seconds; the router's own share of a request is microseconds, a slow policy or ledger milliseconds. */
const OVERHEAD_BUCKETS = [0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1];

/** Every `endpoint` label there can be: the router's own paths; any other path is `other`. */
const ENDPOINT_LABELS: ReadonlySet<string> = new Set(['/', '/health', ...Object.keys(ENDPOINTS)]);

/** A status the router answered with, or `other` (a label is never a free-form value). */
const statusLabel = (status: number): string => (Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'other');

/**
 * The router's Prometheus metrics, in a registry of their own (nothing global), fed by the HTTP
 * layer once a response has finished and by a thin wrapper around each backend (`wrapBackend`).
 *
 * No label holds a string a client chose: endpoints are the router's paths or `other`, statuses
 * are numbers, backends and SKUs are names from the config (the route a model matched, or
 * `other`). However many names, paths and methods clients invent, the number of series is bounded
 * by the config.
 */
export class RouterMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'svc_router_requests_total',
    help: 'HTTP requests answered, by endpoint and status code.',
    labelNames: ['endpoint', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'svc_router_request_duration_seconds',
    help: 'Time from a request arriving to its response (a whole stream, for streams) finishing, by endpoint.',
    labelNames: ['endpoint'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly upstreamErrors = new Counter({
    name: 'svc_router_upstream_errors_total',
    help: 'Failed calls to upstream backends (each failed attempt of a fallback chain), by backend and the status the router made of it.',
    labelNames: ['backend', 'status'] as const,
    registers: [this.registry],
  });
  private readonly tokens = new Counter({
    name: 'svc_router_tokens_total',
    help: 'Tokens recorded for completed requests, by SKU (the SKU or configured route the requested model matched, else other), backend and direction.',
    labelNames: ['sku', 'backend', 'direction'] as const,
    registers: [this.registry],
  });
  private readonly cost = new Counter({
    name: 'svc_router_cost_usd_total',
    help: 'What completed requests cost upstream in US dollars, from the configured and shipped prices, by SKU and backend (requests without a known price are not in it: see svc_router_unpriced_requests_total).',
    labelNames: ['sku', 'backend'] as const,
    registers: [this.registry],
  });
  private readonly unpriced = new Counter({
    name: 'svc_router_unpriced_requests_total',
    help: 'Completed requests whose upstream model has no known price, by SKU and backend.',
    labelNames: ['sku', 'backend'] as const,
    registers: [this.registry],
  });
  private readonly overhead = new Histogram({
    name: 'svc_router_overhead_seconds',
    help: "The router's own time per completion request, by phase: read (arrival to body decoded), route, admit (policies, limits, usage ledger), encode (the reply or a stream's head in the client's format), write (handed to the socket; a stream's head). The upstream's wait is in none of them.",
    labelNames: ['phase'] as const,
    buckets: OVERHEAD_BUCKETS,
    registers: [this.registry],
  });
  /** One child per phase, looked up once: observing a request costs no label hashing. */
  private readonly overheadByPhase = ROUTER_PHASES.map((phase) => this.overhead.labels(phase));
  private readonly streams = new Gauge({
    name: 'svc_router_streams_in_flight',
    help: 'Streamed responses being sent right now.',
    registers: [this.registry],
  });

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  streamStarted(): void {
    this.streams.inc();
  }

  streamEnded(): void {
    this.streams.dec();
  }

  /** A completion request's phases, once its response (a stream's head) is written: one observation per phase. */
  observePhases(phases: RequestPhases): void {
    for (let i = 0; i < ROUTER_PHASES.length; i++) this.overheadByPhase[i]!.observe(phases[ROUTER_PHASES[i]!] / 1000);
  }

  /**
   * One finished request: its endpoint (or `other` for unknown paths), status, duration and tokens
   * (by the route the model matched in `settings`, read only when there are tokens to count).
   */
  observe(trace: RequestTrace | undefined, status: number, seconds: number, settings?: () => Settings): void {
    const endpoint = trace?.endpoint !== undefined && ENDPOINT_LABELS.has(trace.endpoint) ? trace.endpoint : 'other';
    this.requests.inc({ endpoint, status: statusLabel(status) });
    this.latency.observe({ endpoint }, seconds);
    // Token counting (count_tokens) answers a number but consumes nothing.
    if (trace?.model && trace.format !== 'count_tokens' && trace.format !== 'input_tokens' && (trace.inputTokens !== undefined || trace.outputTokens !== undefined)) {
      const current = settings?.();
      const labels = { sku: current ? routeLabel(current, trace.model) : OTHER_ROUTE, backend: trace.backend ?? 'unknown' };
      this.tokens.inc({ ...labels, direction: 'input' }, trace.inputTokens ?? 0);
      this.tokens.inc({ ...labels, direction: 'output' }, trace.outputTokens ?? 0);
      if (trace.costNanoUsd === undefined) this.unpriced.inc(labels);
      else this.cost.inc(labels, trace.costNanoUsd / 1e9);
    }
  }

  /**
   * The backend, wrapped so that each failed call is counted here. Given to the app as its
   * `wrapBackend` when it is created, so the backends the app holds are the ones counted; the
   * wrapper is a plain object that delegates to the backend, nothing inherited.
   */
  readonly wrapBackend = (backend: Backend): Backend => {
    const count = (error: unknown) => this.countUpstreamError(backend.name, error);
    return {
      ...backend,
      async complete(call) {
        try {
          return await backend.complete(call);
        } catch (error) {
          count(error);
          throw error;
        }
      },
      async *stream(call): AsyncGenerator<StreamEvent[]> {
        try {
          for await (const batch of backend.stream(call)) {
            for (const event of batch) if (event.type === 'error') count(event.error);
            yield batch;
          }
        } catch (error) {
          count(error);
          throw error;
        }
      },
      ...(backend.forward ? { forward: countedForwarding(backend.forward, count) } : {}),
    };
  };

  private countUpstreamError(backend: string, error: unknown): void {
    const status = error instanceof RouterError ? error.status : 500;
    // The client hanging up is not the upstream's failure.
    if (status === 499) return;
    this.upstreamErrors.inc({ backend, status: statusLabel(status) });
  }
}

/** A backend's forwarding side with its failures counted as wrapBackend counts the translated calls'. */
function countedForwarding(forward: ForwardingBackend, count: (error: unknown) => void): ForwardingBackend {
  return {
    async complete(call) {
      try {
        return await forward.complete(call);
      } catch (error) {
        count(error);
        throw error;
      }
    },
    async *stream(call): AsyncGenerator<ForwardedFrame[]> {
      try {
        for await (const batch of forward.stream(call)) {
          for (const { note } of batch) if (note.error) count(note.error);
          yield batch;
        }
      } catch (error) {
        count(error);
        throw error;
      }
    },
  };
}
