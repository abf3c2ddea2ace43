import type { BackendSettings } from '../../config/settings.js';
import type { Backend, BackendModule } from '../backend.js';
import { createHttpBackend } from '../http/http-backend.js';
import { anthropicForwardTap } from './forward-tap.js';
import { decodeAnthropicReply } from './decode-reply.js';
import { decodeAnthropicStream } from './decode-stream.js';
import { encodeAnthropicRequest, forwardedAnthropicText } from './encode-request.js';
import { ANTHROPIC_VERSION } from './api-version.js';
import { capabilitiesOf } from '../../catalog/index.js';
import { anthropicAuth, forwardedProtocolVariant, messagesProtocolHeaders } from './upstream-headers.js';

export { ANTHROPIC_VERSION };

/** The Anthropic Messages API (or any server that speaks it). */
export function createAnthropicBackend(name: string, settings: BackendSettings): Backend {
  return createHttpBackend(name, settings, {
    wireFormat: 'messages',
    // Accept the base URL with or without /v1.
    url: (base): string => `${base.replace(/\/v1$/, '')}/v1/messages`,
    // Version and betas as src/backends/anthropic/upstream-headers.ts says; the key in the one form the service takes.
    headers: (key, request, upstreamModel) => ({ ...messagesProtocolHeaders(settings, request, upstreamModel), ...anthropicAuth(settings, key) }),
    headerVariant: (request, upstreamModel) => forwardedProtocolVariant(settings, request, upstreamModel),
    // Anthropic's own API runs server-side fallback, where the model takes it; Bedrock and Vertex do not.
    encode: (request, upstreamModel, stream) => encodeAnthropicRequest(request, upstreamModel, stream, { version: settings.anthropicVersion, serverFallbacks: true }),
    encodeText: (request, upstreamModel, stream) => forwardedAnthropicText(request, upstreamModel, stream, { version: settings.anthropicVersion, serverFallbacks: true }),
    nativeWebSearch: true,
    // Server-side fallback where the model's catalog row says it takes `fallbacks`.
    runsServerFallback: (upstreamModel) => capabilitiesOf('anthropic', upstreamModel)?.serverFallbacks === true,
    decodeReply: (backend, body) => decodeAnthropicReply(backend, body),
    forward: anthropicForwardTap,
    decodeStream: (backend, batches) => decodeAnthropicStream(backend, batches),
  });
}

/** What src/backends/registry.ts loads when a configured backend has type `anthropic`. */
export { probe } from './probe.js';
export const createBackend: BackendModule['createBackend'] = createAnthropicBackend;
