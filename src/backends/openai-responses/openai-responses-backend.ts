import type { BackendSettings } from '../../config/settings.js';
import type { Reply } from '../../core/reply.js';
import type { StreamEvent } from '../../core/stream-events.js';
import type { Backend, BackendCall } from '../backend.js';
import { decodeSse } from '../http/sse-decoder.js';
import { resolveApiKey } from '../http/resolve-api-key.js';
import { networkError, postJson, readJson } from '../http/upstream-client.js';
import { decodeResponsesReply } from './decode-reply.js';
import { decodeResponsesStream } from './decode-stream.js';
import { encodeResponsesRequest } from './encode-request.js';

/** An upstream that speaks the OpenAI Responses API. */
export function createOpenAIResponsesBackend(name: string, settings: BackendSettings): Backend {
  const url = `${settings.baseUrl.replace(/\/+$/, '')}/responses`;

  function send(call: BackendCall, stream: boolean) {
    const key = resolveApiKey(name, settings);
    return postJson({
      backend: name,
      url,
      headers: { ...settings.headers, ...(key ? { authorization: `Bearer ${key}` } : {}), ...(stream ? { accept: 'text/event-stream' } : {}) },
      body: encodeResponsesRequest(call.request, call.upstreamModel, stream),
      signal: call.signal,
      secrets: key ? [key] : [],
      ...(settings.timeouts ? { timeouts: settings.timeouts } : {}),
    });
  }

  return {
    name,
    wireFormat: 'responses',
    async complete(call): Promise<Reply> {
      const response = await send(call, false);
      return decodeResponsesReply(name, await readJson(name, response.body, call.signal));
    },
    async *stream(call): AsyncGenerator<StreamEvent> {
      const response = await send(call, true);
      try {
        yield* decodeResponsesStream(name, decodeSse(response.body));
      } catch (error) {
        throw networkError(name, error, call.signal);
      } finally {
        response.body.destroy();
      }
    },
  };
}
