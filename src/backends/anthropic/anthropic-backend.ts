import type { BackendSettings } from '../../config/settings.js';
import type { Reply } from '../../core/reply.js';
import type { StreamEvent } from '../../core/stream-events.js';
import type { Backend, BackendCall } from '../backend.js';
import { decodeSse } from '../http/sse-decoder.js';
import { resolveApiKey } from '../http/resolve-api-key.js';
import { networkError, postJson, readJson } from '../http/upstream-client.js';
import { decodeAnthropicReply } from './decode-reply.js';
import { decodeAnthropicStream } from './decode-stream.js';
import { encodeAnthropicRequest } from './encode-request.js';

export const ANTHROPIC_VERSION = '2023-06-01';

/** The Anthropic Messages API (or any server that speaks it). */
export function createAnthropicBackend(name: string, settings: BackendSettings): Backend {
  // Accept the base URL with or without /v1.
  const url = `${settings.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/messages`;

  function send(call: BackendCall, stream: boolean) {
    const key = resolveApiKey(name, settings);
    const beta = call.request.passthrough?.headers?.['anthropic-beta'];
    return postJson({
      backend: name,
      url,
      headers: {
        'anthropic-version': ANTHROPIC_VERSION,
        ...(beta ? { 'anthropic-beta': beta } : {}),
        ...settings.headers,
        ...(key ? { 'x-api-key': key } : {}),
        ...(stream ? { accept: 'text/event-stream' } : {}),
      },
      body: encodeAnthropicRequest(call.request, call.upstreamModel, stream),
      signal: call.signal,
      secrets: key ? [key] : [],
      ...(settings.timeouts ? { timeouts: settings.timeouts } : {}),
    });
  }

  return {
    name,
    wireFormat: 'messages',
    async complete(call): Promise<Reply> {
      const response = await send(call, false);
      return decodeAnthropicReply(name, await readJson(name, response.body, call.signal));
    },
    async *stream(call): AsyncGenerator<StreamEvent> {
      const response = await send(call, true);
      try {
        yield* decodeAnthropicStream(name, decodeSse(response.body));
      } catch (error) {
        throw networkError(name, error, call.signal);
      } finally {
        response.body.destroy();
      }
    },
  };
}
