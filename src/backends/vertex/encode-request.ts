import type { CanonicalRequest } from '../../core/request.js';
import { encodeAnthropicRequest } from '../anthropic/encode-request.js';
import { encodeGeminiRequest } from '../gemini/encode-request.js';
import { publisherOf } from './endpoint.js';

/**
 * The version Vertex AI's Claude models take, in the body rather than a header; the body names no
 * model, the URL does (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude).
 */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** A Messages body as Vertex takes it: Anthropic's, with the version in it and no model. */
export function encodeVertexAnthropicRequest(request: CanonicalRequest, upstreamModel: string, stream: boolean): Record<string, unknown> {
  const { model: _model, ...body } = encodeAnthropicRequest(request, upstreamModel, stream) as unknown as Record<string, unknown>;
  return { ...body, anthropic_version: VERTEX_ANTHROPIC_VERSION };
}

/** The body for a model on Vertex: Anthropic's for Claude, Gemini's for Gemini. */
export const encodeVertexRequest = (request: CanonicalRequest, upstreamModel: string, stream: boolean): unknown =>
  publisherOf(upstreamModel) === 'anthropic' ? encodeVertexAnthropicRequest(request, upstreamModel, stream) : encodeGeminiRequest(request, upstreamModel, stream);
