import type { BackendSettings } from '../../config/settings.js';
import type { Backend, BackendModule } from '../backend.js';
import { decodeAnthropicReply } from '../anthropic/decode-reply.js';
import { decodeAnthropicStream } from '../anthropic/decode-stream.js';
import { createHttpBackend, type HttpBackendSpec } from '../http/http-backend.js';
import { resolveApiKey } from '../http/resolve-api-key.js';
import { bedrockFrames } from './bedrock-frames.js';
import { decodeConverseReply } from './converse-decode-reply.js';
import { decodeConverseStream } from './converse-decode-stream.js';
import { encodeConverseRequest } from './converse-encode.js';
import { converseFrames } from './converse-frames.js';
import { resolveAwsCredentials } from './credentials.js';
import { encodeBedrockRequest } from './encode-request.js';
import { isClaudeModel } from './model-family.js';
import { resolveRegion } from './region.js';
import { signRequest } from './sigv4.js';

/** The service name Bedrock's runtime signatures are scoped to. */
const SIGNING_SERVICE = 'bedrock';

/**
 * Amazon Bedrock's runtime. Anthropic Claude models go over InvokeModel and
 * InvokeModelWithResponseStream (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html),
 * the body Anthropic's, the stream AWS's event-stream framing around Anthropic's events, so every
 * Claude feature the Anthropic translation knows reaches them. Every other model family (Nova,
 * Llama, Mistral, DeepSeek, Qwen, gpt-oss …) goes over Converse and ConverseStream
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html), the one
 * body they all take. Calls are signed with SigV4 from the standard credential sources, or carry a
 * Bedrock API key as a bearer token when the backend has a key
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys.html).
 */
export function createBedrockBackend(name: string, settings: BackendSettings): Backend {
  const transport: Pick<HttpBackendSpec, 'sign'> = {
    async sign(request) {
      if (resolveApiKey(name, settings)) return {};
      const credentials = await resolveAwsCredentials({ backend: name, ...(settings.awsProfile ? { profile: settings.awsProfile } : {}) });
      return signRequest({ ...request, region: resolveRegion(name, settings), service: SIGNING_SERVICE, credentials, now: new Date() });
    },
  };
  const bearer = (key: string | undefined): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});
  const invoke = createHttpBackend(name, settings, {
    ...transport,
    url: (base, model, stream) => `${base}/model/${encodeURIComponent(model)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`,
    // InvokeModel takes the reply's type as Accept, the stream as X-Amzn-Bedrock-Accept.
    headers: (key) => ({ accept: 'application/json', 'x-amzn-bedrock-accept': 'application/json', ...bearer(key) }),
    encode: (request, upstreamModel) => encodeBedrockRequest(name, request, upstreamModel),
    frames: (body) => bedrockFrames(name, body),
    decodeReply: (backend, body) => decodeAnthropicReply(backend, body),
    decodeStream: (backend, batches) => decodeAnthropicStream(backend, batches),
  });
  const converse = createHttpBackend(name, settings, {
    ...transport,
    url: (base, model, stream) => `${base}/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}`,
    headers: (key) => ({ accept: 'application/json', ...bearer(key) }),
    encode: (request, upstreamModel) => encodeConverseRequest(request, upstreamModel),
    frames: (body) => converseFrames(name, body),
    decodeReply: decodeConverseReply,
    decodeStream: decodeConverseStream,
  });
  // Chosen per call: one backend's routes may name Claude and other families side by side.
  const api = (upstreamModel: string): Backend => (isClaudeModel(upstreamModel) ? invoke : converse);
  return {
    name,
    complete: (call) => api(call.upstreamModel).complete(call),
    stream: (call) => api(call.upstreamModel).stream(call),
  };
}

/** What src/backends/registry.ts loads when a configured backend has type `bedrock`. */
export { probe } from './probe.js';
export const createBackend: BackendModule['createBackend'] = createBedrockBackend;
