import type { CanonicalRequest } from '../../core/request.js';
import { encodeResponsesRequest } from './encode-request.js';

/**
 * OpenAI's input token count for a Responses request, `POST /v1/responses/input_tokens`, which
 * takes the request's prompt fields and answers `{ "object": "response.input_tokens",
 * "input_tokens": N }`: https://platform.openai.com/docs/api-reference/responses/input-tokens
 * (llama.cpp's server answers it too).
 */
export const RESPONSES_COUNT_PATH = '/responses/input_tokens';

const COUNTED_FIELDS = ['model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'reasoning', 'text', 'truncation'] as const;

export function responsesCountBody(request: CanonicalRequest, upstreamModel: string): Record<string, unknown> {
  const full = encodeResponsesRequest(request, upstreamModel, false) as unknown as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  for (const field of COUNTED_FIELDS) if (full[field] !== undefined) body[field] = full[field];
  return body;
}
