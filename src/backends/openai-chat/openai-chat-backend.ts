import type { BackendSettings } from '../../config/settings.js';
import type { Backend, BackendModule } from '../backend.js';
import { forwardedClientHeaders, forwardedClientVariant } from '../http/client-headers.js';
import { createHttpBackend } from '../http/http-backend.js';
import { chatForwardTap } from './forward-tap.js';
import { decodeChatReply } from './decode-reply.js';
import { decodeChatStream } from './decode-stream.js';
import { encodeChatRequest, forwardedChatText, type ChatEncodeOptions } from './encode-request.js';
import { openrouterCachesAtBreakpoints } from './profiles/openrouter.js';

/** Any OpenAI-compatible Chat Completions server: OpenAI, vLLM, Ollama, llama.cpp, OpenRouter, Groq… */
export function createOpenAIChatBackend(name: string, settings: BackendSettings): Backend {
  const encodeOptions = (upstreamModel: string): ChatEncodeOptions => ({
    cacheControl: settings.cacheControl === true || (settings.profile === 'openrouter' && openrouterCachesAtBreakpoints(upstreamModel)),
    ...(settings.profile ? { profile: settings.profile } : {}),
    ...(settings.providerRouting ? { providerRouting: settings.providerRouting } : {}),
  });
  return createHttpBackend(name, settings, {
    wireFormat: 'chat',
    url: (base): string => `${base}/chat/completions`,
    // The client's OpenAI-Beta on a forwarded call; the key after it, so nothing a client sends replaces it.
    headers: (key, request): Record<string, string> => ({ ...forwardedClientHeaders(request, 'chat'), ...(key ? { authorization: `Bearer ${key}` } : {}) }),
    headerVariant: (request) => forwardedClientVariant(request, 'chat'),
    encode: (request, upstreamModel, stream) => encodeChatRequest(request, upstreamModel, stream, encodeOptions(upstreamModel)),
    encodeText: (request, upstreamModel, stream) => forwardedChatText(request, upstreamModel, stream, encodeOptions(upstreamModel)),
    decodeReply: decodeChatReply,
    forward: chatForwardTap,
    decodeStream: decodeChatStream,
  });
}

/** What src/backends/registry.ts loads when a configured backend has type `openai-chat`. */
export { probe } from './probe.js';
export const createBackend: BackendModule['createBackend'] = createOpenAIChatBackend;
