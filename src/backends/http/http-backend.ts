import type { BackendSettings } from '../../config/settings.js';
import type { Reply } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import type { StreamEvent } from '../../core/stream-events.js';
import type { Backend, BackendCall } from '../backend.js';
import { resolveApiKey } from './resolve-api-key.js';
import { decodeSse, type SseFrame } from './sse-decoder.js';
import { postJson, readJson } from './upstream-client.js';
import { networkError } from './upstream-error.js';

/** What makes one kind of HTTP upstream differ from another; the calling is shared. */
export interface HttpBackendSpec {
  wireFormat: NonNullable<Backend['wireFormat']>;
  /** The endpoint URL for a configured base URL. */
  url(baseUrl: string): string;
  /** Auth and protocol headers for this call (the key, when the backend has one). */
  headers(key: string | undefined, request: CanonicalRequest): Record<string, string>;
  encode(request: CanonicalRequest, upstreamModel: string, stream: boolean): unknown;
  decodeReply(backend: string, body: unknown, request: CanonicalRequest): Reply;
  decodeStream(backend: string, batches: AsyncIterable<SseFrame[]>, request: CanonicalRequest): AsyncIterable<StreamEvent[]>;
}

/** A backend that POSTs JSON to an upstream and decodes its JSON reply or SSE stream. */
export function createHttpBackend(name: string, settings: BackendSettings, spec: HttpBackendSpec): Backend {
  const url = spec.url(settings.baseUrl.replace(/\/+$/, ''));

  function send(call: BackendCall, stream: boolean) {
    const key = resolveApiKey(name, settings);
    return postJson({
      backend: name,
      url,
      // Configured headers first, so they can add to but never replace the upstream's auth.
      headers: { ...settings.headers, ...spec.headers(key, call.request), ...(stream ? { accept: 'text/event-stream' } : {}) },
      body: spec.encode(call.request, call.upstreamModel, stream),
      signal: call.signal,
      secrets: key ? [key] : [],
      ...(settings.timeouts ? { timeouts: settings.timeouts } : {}),
    });
  }

  return {
    name,
    wireFormat: spec.wireFormat,
    async complete(call): Promise<Reply> {
      const response = await send(call, false);
      return spec.decodeReply(name, await readJson(name, response, call.signal), call.request);
    },
    async *stream(call): AsyncGenerator<StreamEvent[]> {
      const response = await send(call, true);
      try {
        yield* spec.decodeStream(name, decodeSse(response.body), call.request);
      } catch (error) {
        throw networkError(name, error, call.signal);
      } finally {
        response.body.destroy();
      }
    },
  };
}
