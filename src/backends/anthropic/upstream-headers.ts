import type { BackendSettings } from '../../config/settings.js';
import type { CanonicalRequest } from '../../core/request.js';
import { capabilitiesOf } from '../../catalog/index.js';
import { ANTHROPIC_VERSION } from './api-version.js';
import { SERVER_FALLBACK_BETA } from './model-rules.js';
import { BINDING_BETA } from './input-transformations.js';
import { metadataOf } from '../../core/provider-metadata.js';

/** The client's protocol headers, as its Messages call carried them. */
export interface ClientProtocolHeaders {
  'anthropic-version'?: string | undefined;
  'anthropic-beta'?: string | undefined;
}

/** The Files API's beta: a `document` whose source is a `file_id` needs it (https://docs.anthropic.com/en/docs/build-with-claude/files). */
export const FILES_API_BETA = 'files-api-2025-04-14';

/**
 * The key in exactly one of the two forms an Anthropic-compatible service takes: `x-api-key`
 * (Anthropic's own, the default) or `Authorization: Bearer` (gateways and services that read only
 * that, and refuse a call carrying both). Never both, so neither form reaches a service twice.
 */
export function anthropicAuth(settings: Pick<BackendSettings, 'auth'>, key: string | undefined): Record<string, string> {
  if (!key) return {};
  return settings.auth === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
}

/**
 * `anthropic-version` and `anthropic-beta` for a call whose body is the client's own (Messages
 * forwarded, count_tokens): the client's, as sent. Claude Code's gateway protocol asks a gateway to
 * forward both unchanged (https://code.claude.com/docs/en/llm-gateway-protocol): a client that
 * sends a newer version shapes its body for it. A backend's pinned version wins.
 */
export function forwardedProtocolHeaders(settings: Pick<BackendSettings, 'anthropicVersion'>, client: ClientProtocolHeaders | undefined, extraBeta?: string): Record<string, string> {
  const version = settings.anthropicVersion ?? client?.['anthropic-version'] ?? ANTHROPIC_VERSION;
  const beta = withBeta(client?.['anthropic-beta'], extraBeta);
  return { 'anthropic-version': version, ...(beta ? { 'anthropic-beta': beta } : {}) };
}

/** A betas header with one more, unless it names it already. */
function withBeta(header: string | undefined, beta: string | undefined): string | undefined {
  if (!beta || header?.split(',').some((name) => name.trim() === beta)) return header;
  return header ? `${header},${beta}` : beta;
}

/**
 * A forwarded body that replays thinking blocks, to a model the catalog knows to think, asks Anthropic
 * to report the blocks it drops for another model's (input-transformations.ts): their signatures
 * say which model wrote them to Anthropic alone, and the client is told what was not read.
 */
function bindingReport(request: CanonicalRequest, upstreamModel: string | undefined): string | undefined {
  if (upstreamModel === undefined || !capabilitiesOf('anthropic', upstreamModel)?.reasoningReads) return undefined;
  const replays = request.messages.some((message) => message.role === 'assistant' && message.content.some((part) => part.type === 'reasoning' && typeof metadataOf(part.providerMetadata, 'anthropic')?.signature === 'string'));
  return replays ? BINDING_BETA : undefined;
}

/**
 * `anthropic-version` and `anthropic-beta` for a body the router wrote from a Chat or Responses
 * request. The version is 2023-06-01: the translation sends temperature, top_p and top_k, which
 * version 2026-10-21 refuses (https://platform.claude.com/docs/en/api/migration-2026-10-21). A
 * pinned version wins (the encoder then leaves those out, with a warning). The betas are those of the features the body
 * uses: the Files API's for an Anthropic file id; every other feature the translation writes
 * (documents by URL or inline, structured outputs, thinking, cache_control) needs none.
 */
export function translatedProtocolHeaders(settings: Pick<BackendSettings, 'anthropicVersion'>, request: CanonicalRequest): Record<string, string> {
  const version = settings.anthropicVersion ?? ANTHROPIC_VERSION;
  return { 'anthropic-version': version, ...(usesAnthropicFile(request) ? { 'anthropic-beta': FILES_API_BETA } : {}) };
}

/**
 * Protocol headers for a Messages call to Anthropic's API: forwarded or translated, as the body is;
 * a translated body that asks for server-side fallback (encode-request.ts sends `fallbacks` where
 * the catalog says the model takes it) names its beta.
 */
export function messagesProtocolHeaders(settings: Pick<BackendSettings, 'anthropicVersion'>, request: CanonicalRequest, upstreamModel?: string): Record<string, string> {
  if (request.forwardBody?.format === 'messages') return forwardedProtocolHeaders(settings, request.forwardBody.headers, bindingReport(request, upstreamModel));
  const headers = translatedProtocolHeaders(settings, request);
  if (request.fallbacks && upstreamModel !== undefined && capabilitiesOf('anthropic', upstreamModel)?.serverFallbacks) {
    headers['anthropic-beta'] = headers['anthropic-beta'] ? `${headers['anthropic-beta']},${SERVER_FALLBACK_BETA}` : SERVER_FALLBACK_BETA;
  }
  return headers;
}

/**
 * What of the request messagesProtocolHeaders reads, as a string (HttpBackendSpec.headerVariant):
 * on a forwarded call the version and betas it sends; undefined on a translated one, whose betas
 * depend on the body.
 */
export function forwardedProtocolVariant(settings: Pick<BackendSettings, 'anthropicVersion'>, request: CanonicalRequest, upstreamModel?: string): string | undefined {
  if (request.forwardBody?.format !== 'messages') return undefined;
  const client = request.forwardBody.headers;
  return `${settings.anthropicVersion ?? client?.['anthropic-version'] ?? ANTHROPIC_VERSION}\u0000${client?.['anthropic-beta'] ?? ''}\u0000${bindingReport(request, upstreamModel) ?? ''}`;
}

function usesAnthropicFile(request: CanonicalRequest): boolean {
  for (const message of request.messages) {
    for (const part of message.content) {
      if (part.type === 'file' && part.source.kind === 'file-id' && part.source.provider === 'anthropic') return true;
    }
  }
  return false;
}
