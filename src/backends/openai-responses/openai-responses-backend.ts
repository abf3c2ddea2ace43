import type { BackendSettings } from '../../config/settings.js';
import type { Backend, BackendModule } from '../backend.js';
import { forwardedClientHeaders, forwardedClientVariant } from '../http/client-headers.js';
import { createHttpBackend } from '../http/http-backend.js';
import { decodeResponsesReply } from './decode-reply.js';
import { decodeResponsesStream } from './decode-stream.js';
import { encodeResponsesRequest } from './encode-request.js';
import { responsesForwardTap } from './forward-tap.js';
import { ResponsesSocketPool, socketUrl } from './socket/socket-pool.js';

/** An upstream that speaks the OpenAI Responses API. */
export function createOpenAIResponsesBackend(name: string, settings: BackendSettings): Backend {
  // `websocket: true`: streamed turns over WebSocket mode, one socket per session (the session's prompt-cache key).
  const sockets = settings.websocket ? new ResponsesSocketPool(socketUrl(settings.baseUrl), settings.timeouts) : undefined;
  return createHttpBackend(name, settings, {
    wireFormat: 'responses',
    url: (base): string => `${base}/responses`,
    // The client's OpenAI-Beta on a forwarded call; the key after it, so nothing a client sends replaces it.
    headers: (key, request): Record<string, string> => ({ ...forwardedClientHeaders(request, 'responses'), ...(key ? { authorization: `Bearer ${key}` } : {}) }),
    headerVariant: (request) => forwardedClientVariant(request, 'responses'),
    encode: encodeResponsesRequest,
    nativeWebSearch: true,
    decodeReply: decodeResponsesReply,
    decodeStream: decodeResponsesStream,
    forward: responsesForwardTap,
    ...(sockets ? { streamElsewhere: (call, headers, body) => sockets.turn(call.request.promptCacheKey, headers, body, call.signal) } : {}),
  });
}

/** What src/backends/registry.ts loads when a configured backend has type `openai-responses`. */
export { probe } from './probe.js';
export const createBackend: BackendModule['createBackend'] = createOpenAIResponsesBackend;
