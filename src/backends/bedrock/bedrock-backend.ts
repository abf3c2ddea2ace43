import type { BackendSettings } from '../../config/settings.js';
import type { Backend, BackendModule } from '../backend.js';
import { decodeAnthropicReply } from '../anthropic/decode-reply.js';
import { decodeAnthropicStream } from '../anthropic/decode-stream.js';
import { createHttpBackend } from '../http/http-backend.js';
import { resolveApiKey } from '../http/resolve-api-key.js';
import { bedrockFrames } from './bedrock-frames.js';
import { resolveAwsCredentials } from './credentials.js';
import { encodeBedrockRequest } from './encode-request.js';
import { resolveRegion } from './region.js';
import { signRequest } from './sigv4.js';

/** The service name Bedrock's runtime signatures are scoped to. */
const SIGNING_SERVICE = 'bedrock';

/**
 * Amazon Bedrock's runtime, Anthropic Claude models: InvokeModel and InvokeModelWithResponseStream
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html), the body
 * Anthropic's, the stream AWS's event-stream framing around Anthropic's events. Calls are signed
 * with SigV4 from the standard credential sources, or carry a Bedrock API key as a bearer token
 * when the backend has a key (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys.html).
 */
export function createBedrockBackend(name: string, settings: BackendSettings): Backend {
  return createHttpBackend(name, settings, {
    url: (base, model, stream) => `${base}/model/${encodeURIComponent(model)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`,
    // InvokeModel takes the reply's type as Accept, the stream as X-Amzn-Bedrock-Accept.
    headers: (key) => ({ accept: 'application/json', 'x-amzn-bedrock-accept': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }),
    encode: (request, upstreamModel) => encodeBedrockRequest(name, request, upstreamModel),
    async sign(request) {
      if (resolveApiKey(name, settings)) return {};
      const credentials = await resolveAwsCredentials({ backend: name, ...(settings.awsProfile ? { profile: settings.awsProfile } : {}) });
      return signRequest({ ...request, region: resolveRegion(name, settings), service: SIGNING_SERVICE, credentials, now: new Date() });
    },
    frames: (body) => bedrockFrames(name, body),
    decodeReply: (backend, body) => decodeAnthropicReply(backend, body),
    decodeStream: (backend, batches) => decodeAnthropicStream(backend, batches),
  });
}

/** What src/backends/registry.ts loads when a configured backend has type `bedrock`. */
export { probe } from './probe.js';
export const createBackend: BackendModule['createBackend'] = createBedrockBackend;
