import type { BackendSettings } from '../../config/settings.js';
import { RouterError } from '../../core/errors.js';
import type { StreamEvent } from '../../core/stream-events.js';
import type { Backend, BackendModule } from '../backend.js';
import { createHttpBackend } from '../http/http-backend.js';
import { keyRejected } from '../http/upstream-error.js';
import { decodeGeminiReply } from './decode-reply.js';
import { decodeGeminiStream } from './decode-stream.js';
import { encodeGeminiRequest, forwardedGeminiText } from './encode-request.js';
import { geminiForwardTap } from './forward-tap.js';
import { GEMINI_API_VERSION, KEY_NOT_VALID, versionedBase } from './endpoint.js';

export { GEMINI_API_VERSION };

/**
 * The model's method URL: `…/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse`
 * for server-sent events (https://ai.google.dev/api/generate-content). The base URL may name an API
 * version (https://generativelanguage.googleapis.com/v1beta) or not, or the backend's `apiVersion`
 * say it; a model may be given as `models/…`.
 */
export function geminiUrl(baseUrl: string, model: string, stream: boolean, apiVersion?: string): string {
  const base = versionedBase(baseUrl, apiVersion);
  const path = model.replace(/^models\//, '').split('/').map(encodeURIComponent).join('/');
  return `${base}/models/${path}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
}

/** Google's Gemini API (or any server that speaks it); the key goes in `x-goog-api-key`. */
export function createGeminiBackend(name: string, settings: BackendSettings): Backend {
  // A Gemini client's body is sent as it came, and the reply passes to it as it came (forward-tap.ts).
  const http = createHttpBackend(name, settings, {
    wireFormat: 'gemini',
    url: (base, model, stream) => geminiUrl(base, model, stream, settings.apiVersion),
    headers: (key): Record<string, string> => (key ? { 'x-goog-api-key': key } : {}),
    headerVariant: () => '',
    encode: encodeGeminiRequest,
    encodeText: forwardedGeminiText,
    forward: geminiForwardTap,
    nativeWebSearch: true,
    decodeReply: decodeGeminiReply,
    decodeStream: decodeGeminiStream,
  });
  const keyRefused = (error: unknown): unknown => (isKeyRefusal(error) ? keyRejected(name, 400, { cause: (error as RouterError).cause }) : error);
  const forward = http.forward!;
  return {
    ...http,
    forward: {
      async complete(call) {
        try {
          return await forward.complete(call);
        } catch (error) {
          throw keyRefused(error);
        }
      },
      async *stream(call) {
        try {
          yield* forward.stream(call);
        } catch (error) {
          throw keyRefused(error);
        }
      },
    },
    async complete(call) {
      try {
        return await http.complete(call);
      } catch (error) {
        throw keyRefused(error);
      }
    },
    async *stream(call): AsyncGenerator<StreamEvent[]> {
      try {
        yield* http.stream(call);
      } catch (error) {
        throw keyRefused(error);
      }
    },
  };
}

/**
 * Gemini answers a wrong key with 400 INVALID_ARGUMENT ("API key not valid"), not 401: that is the
 * router's configuration failing, not the client's request, so it is a 502 the route may fall back
 * from, as a refused key is for every other backend.
 */
const isKeyRefusal = (error: unknown): boolean => error instanceof RouterError && error.status === 400 && KEY_NOT_VALID.test(error.message);

/** What src/backends/registry.ts loads when a configured backend has type `gemini`. */
export { probe } from './probe.js';
export const createBackend: BackendModule['createBackend'] = createGeminiBackend;
