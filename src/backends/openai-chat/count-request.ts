import type { CanonicalRequest } from '../../core/request.js';
import { encodeChatRequest } from './encode-request.js';

/**
 * The input token count of a Chat Completions request where the server has one: llama.cpp's
 * `POST /v1/chat/completions/input_tokens` takes a chat completion body and answers as OpenAI's
 * Responses count does, `{ "input_tokens": N }` (tools/server/README.md in llama.cpp). OpenAI's own
 * Chat API has no count endpoint; a server without it answers 404 and the router estimates.
 */
export const CHAT_COUNT_PATH = '/chat/completions/input_tokens';

export function chatCountBody(request: CanonicalRequest, upstreamModel: string): Record<string, unknown> {
  const body = encodeChatRequest(request, upstreamModel, false) as unknown as Record<string, unknown>;
  // What bounds the answer, not the prompt.
  delete body.max_tokens;
  delete body.max_completion_tokens;
  return body;
}
