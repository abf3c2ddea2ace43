import type { ProviderRules } from './chat-provider-server.js';

/**
 * Mistral (https://docs.mistral.ai/api/#tag/chat): a field its schema does not name is a 422
 * `extra_forbidden`, `stream_options`, `max_completion_tokens` and `seed` (its own is
 * `random_seed`) among them, and `reasoning_content` on a message. It ends every stream with usage.
 */
const TAKEN = new Set(['model', 'messages', 'temperature', 'top_p', 'max_tokens', 'stream', 'stop', 'random_seed', 'response_format', 'tools', 'tool_choice', 'presence_penalty', 'frequency_penalty', 'n', 'prediction', 'parallel_tool_calls', 'prompt_mode', 'safe_prompt']);
const MESSAGE_FIELDS = new Set(['role', 'content', 'tool_calls', 'tool_call_id', 'name', 'prefix']);

const extraForbidden = (loc: Array<string | number>, input: unknown) => ({
  status: 422,
  body: { object: 'error', message: { detail: [{ type: 'extra_forbidden', loc: ['body', ...loc], msg: 'Extra inputs are not permitted', input }] }, type: 'invalid_request_error', param: null, code: null },
});

export const mistralRules: ProviderRules = {
  name: 'mistral',
  refuse(body) {
    for (const [field, value] of Object.entries(body)) if (!TAKEN.has(field)) return extraForbidden([field], value);
    for (const [index, message] of (body.messages as Array<Record<string, unknown>>).entries()) {
      for (const [field, value] of Object.entries(message)) if (!MESSAGE_FIELDS.has(field)) return extraForbidden(['messages', index, String(message.role), field], value);
    }
    return undefined;
  },
  reasoning: () => ({}),
  reasoningDeltas: () => [],
};
