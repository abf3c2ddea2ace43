import { dropRefused, type ChatProfile } from './profile.js';

/**
 * Mistral (https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post)
 * answers 422 to any field its schema does not name. Its seed is `random_seed` and its cap
 * `max_tokens`, so those are renamed; `stream_options` is left out without a word, since Mistral
 * ends every stream with its usage anyway; anything else it does not take is left out with a
 * warning, as is reasoning a client put on its assistant messages.
 */
const TAKEN = new Set([
  'model',
  'messages',
  'temperature',
  'top_p',
  'max_tokens',
  'stream',
  'stop',
  'random_seed',
  'response_format',
  'tools',
  'tool_choice',
  'presence_penalty',
  'frequency_penalty',
  'n',
  'prediction',
  'parallel_tool_calls',
  'prompt_mode',
  'safe_prompt',
]);

export const mistralProfile: ChatProfile = {
  name: 'mistral',
  doc: 'https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post',
  apply(body, { warnings }) {
    if (body.max_completion_tokens !== undefined) {
      body.max_tokens ??= body.max_completion_tokens;
      delete body.max_completion_tokens;
    }
    if (body.seed !== undefined) {
      body.random_seed ??= body.seed;
      delete body.seed;
    }
    delete body.stream_options;
    dropRefused(body, Object.keys(body).filter((field) => !TAKEN.has(field)), 'Mistral does not take it', warnings);
    if (!Array.isArray(body.messages)) return;
    let dropped = false;
    for (const message of body.messages as Array<Record<string, unknown>>) {
      for (const field of ['reasoning_content', 'reasoning'] as const) {
        if (message && typeof message === 'object' && Object.hasOwn(message, field)) {
          delete message[field];
          dropped = true;
        }
      }
    }
    if (dropped) warnings.push('messages[].reasoning_content not sent: Mistral does not take reasoning on assistant messages.');
  },
};
