import type { BackendSettings } from '../../config/settings.js';
import { RouterError } from '../../core/errors.js';
import type { StreamEvent } from '../../core/stream-events.js';
import { decodeAnthropicReply } from '../anthropic/decode-reply.js';
import { decodeAnthropicStream } from '../anthropic/decode-stream.js';
import type { Backend, BackendCall, BackendModule } from '../backend.js';
import { decodeGeminiReply } from '../gemini/decode-reply.js';
import { decodeGeminiStream } from '../gemini/decode-stream.js';
import { encodeGeminiRequest, forwardedGeminiText } from '../gemini/encode-request.js';
import { geminiForwardTap } from '../gemini/forward-tap.js';
import { createHttpBackend, type HttpBackendSpec } from '../http/http-backend.js';
import { accessToken, credentialsFileOf, forgetAccessToken } from './access-token.js';
import { encodeVertexAnthropicRequest } from './encode-request.js';
import { publisherOf, vertexUrl } from './endpoint.js';

const bearer = (token: string | undefined): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

/**
 * Google Vertex AI: Claude models through Anthropic's Messages wire, Gemini models through
 * Gemini's, both authenticated with a Google access token (access-token.ts). The model name picks
 * the publisher. A Gemini client's calls to a Gemini model are forwarded (wireFormatFor); a
 * Messages client's Claude reply is decoded and encoded again, losslessly for the fields the
 * router models.
 */
export function createVertexBackend(name: string, settings: BackendSettings): Backend {
  const { project, region } = settings;
  const misconfigured = (what: string) => new RouterError(502, 'configuration', `Backend '${name}' (vertex) has no ${what}; set it with svc-router backends add ${name} --type vertex --project P --region R.`);
  const url = (base: string, model: string, stream: boolean) => {
    if (!project) throw misconfigured('project');
    if (!region) throw misconfigured('region');
    return vertexUrl(base, project, region, model, stream);
  };
  const shared = { url, nativeWebSearch: true } satisfies Partial<HttpBackendSpec>;
  const claude = createHttpBackend(name, settings, {
    ...shared,
    // Betas a Messages client asked for go on as Vertex takes them; the version is in the body.
    headers: (token, request) => {
      const beta = request.forwardBody?.format === 'messages' ? request.forwardBody.headers?.['anthropic-beta'] : undefined;
      return { ...bearer(token), ...(beta ? { 'anthropic-beta': beta } : {}) };
    },
    headerVariant: (request) => (request.forwardBody?.format === 'messages' ? (request.forwardBody.headers?.['anthropic-beta'] ?? '') : ''),
    encode: encodeVertexAnthropicRequest,
    decodeReply: (backend, body) => decodeAnthropicReply(backend, body),
    decodeStream: (backend, batches) => decodeAnthropicStream(backend, batches),
  });
  const gemini = createHttpBackend(name, settings, {
    ...shared,
    wireFormat: 'gemini',
    headers: bearer,
    headerVariant: () => '',
    encode: encodeGeminiRequest,
    encodeText: forwardedGeminiText,
    forward: geminiForwardTap,
    decodeReply: decodeGeminiReply,
    decodeStream: decodeGeminiStream,
  });
  const geminiForward = gemini.forward!;

  /** The wire for the call's model, and the call with the access token as its key. */
  async function prepared(call: BackendCall): Promise<[Backend, BackendCall]> {
    const publisher = publisherOf(call.upstreamModel);
    if (!publisher) {
      throw new RouterError(400, 'invalid_request', `Backend '${name}' (vertex) serves claude-* and gemini-* models; '${call.upstreamModel.slice(0, 80)}' is neither.`, 'model', 'model_not_found');
    }
    const token = await accessToken(name, credentialsFileOf(settings.credentials));
    return [publisher === 'anthropic' ? claude : gemini, { ...call, apiKey: token }];
  }

  /**
   * Vertex refusing the token (401) or the account (403) is the backend's credentials failing: a
   * refused token is forgotten, so the next call fetches another, and the error says which it was
   * in Google's terms rather than an API key's.
   */
  function refused(error: unknown, token: string | undefined): unknown {
    const status = error instanceof RouterError && error.status === 502 ? /rejected its API key \(HTTP (401|403)\)/.exec(error.message)?.[1] : undefined;
    if (!status || !token) return error;
    if (status === '401') forgetAccessToken(credentialsFileOf(settings.credentials), token);
    const what = status === '401' ? 'refused its Google access token (HTTP 401); another is fetched for the next call' : `denied its service account access to project ${project} in ${region} (HTTP 403); grant it the Vertex AI User role`;
    // A refused token is replaced on the next call, so a retry may pass; a denied account waits for its owner.
    return new RouterError(502, status === '401' ? 'upstream' : 'configuration', `Backend '${name}': Vertex AI ${what}.`, undefined, 'upstream_auth', undefined, { cause: error, retryable: true });
  }

  return {
    name,
    nativeWebSearch: true,
    // A Gemini model speaks Gemini's API: a Gemini client's body and reply pass as they came.
    wireFormatFor: (upstreamModel) => (publisherOf(upstreamModel) === 'google' ? 'gemini' : undefined),
    forward: {
      async complete(call) {
        const [, authorised] = await prepared(call);
        try {
          return await geminiForward.complete(authorised);
        } catch (error) {
          throw refused(error, authorised.apiKey);
        }
      },
      async *stream(call) {
        const [, authorised] = await prepared(call);
        try {
          yield* geminiForward.stream(authorised);
        } catch (error) {
          throw refused(error, authorised.apiKey);
        }
      },
    },
    async complete(call) {
      const [wire, authorised] = await prepared(call);
      try {
        return await wire.complete(authorised);
      } catch (error) {
        throw refused(error, authorised.apiKey);
      }
    },
    async *stream(call): AsyncGenerator<StreamEvent[]> {
      const [wire, authorised] = await prepared(call);
      try {
        yield* wire.stream(authorised);
      } catch (error) {
        throw refused(error, authorised.apiKey);
      }
    },
  };
}

/** What src/backends/registry.ts loads when a configured backend has type `vertex`. */
export const createBackend: BackendModule['createBackend'] = createVertexBackend;
