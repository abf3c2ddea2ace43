import type { CanonicalRequest } from '../../core/request.js';
import { encodeAnthropicRequest } from '../anthropic/encode-request.js';
import { translatedProtocolHeaders } from '../anthropic/upstream-headers.js';
import { claudeNameOf } from './model-family.js';

/** The version Bedrock's Claude bodies name in place of the anthropic-version header. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * Anthropic's Messages body as Bedrock takes it on InvokeModel
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html):
 * the model is in the path and the method says whether it streams, so no `model` or `stream`;
 * the version is `anthropic_version` in the body, and the betas are `anthropic_beta`, a list.
 */
export function encodeBedrockRequest(_backend: string, request: CanonicalRequest, upstreamModel: string): Record<string, unknown> {
  // The translation is written for 2023-06-01, the Messages version Bedrock's Claude bodies follow.
  const { model: _model, stream: _stream, ...body } = encodeAnthropicRequest(request, claudeNameOf(upstreamModel), false) as unknown as Record<string, unknown>;
  const beta = betasOf(request);
  return { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...(beta.length ? { anthropic_beta: beta } : {}), ...body };
}

/** The betas the call needs: a forwarded Messages client's own header, else those the translation uses. */
function betasOf(request: CanonicalRequest): string[] {
  const header = request.forwardBody?.format === 'messages' ? request.forwardBody.headers?.['anthropic-beta'] : translatedProtocolHeaders({}, request)['anthropic-beta'];
  return header ? header.split(',').map((beta) => beta.trim()).filter(Boolean) : [];
}
