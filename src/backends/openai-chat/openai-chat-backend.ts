import type { BackendSettings } from '../../config/settings.js';
import type { Reply } from '../../core/reply.js';
import type { StreamEvent } from '../../core/stream-events.js';
import type { Backend, BackendCall } from '../backend.js';
import { decodeSse } from '../http/sse-decoder.js';
import { resolveApiKey } from '../http/resolve-api-key.js';
import { networkError, postJson, readJson } from '../http/upstream-client.js';
import { decodeChatReply } from './decode-reply.js';
import { decodeChatStream } from './decode-stream.js';
import { encodeChatRequest } from './encode-request.js';

/** Any OpenAI-compatible Chat Completions server: OpenAI, vLLM, Ollama, llama.cpp, OpenRouter, Groq… */
export function createOpenAIChatBackend(name: string, settings: BackendSettings): Backend {
  const url = `${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`;

  function send(call: BackendCall, stream: boolean) {
    const key = resolveApiKey(name, settings);
    return postJson({
      backend: name,
      url,
      headers: { ...settings.headers, ...(key ? { authorization: `Bearer ${key}` } : {}), ...(stream ? { accept: 'text/event-stream' } : {}) },
      body: encodeChatRequest(call.request, call.upstreamModel, stream),
      signal: call.signal,
      secrets: key ? [key] : [],
      ...(settings.timeouts ? { timeouts: settings.timeouts } : {}),
    });
  }

  return {
    name,
    wireFormat: 'chat',
    async complete(call): Promise<Reply> {
      const response = await send(call, false);
      return decodeChatReply(name, await readJson(name, response.body, call.signal), call.request);
    },
    async *stream(call): AsyncGenerator<StreamEvent> {
      const response = await send(call, true);
      try {
        yield* decodeChatStream(name, decodeSse(response.body), call.request);
      } catch (error) {
        throw networkError(name, error, call.signal);
      } finally {
        response.body.destroy();
      }
    },
  };
}
