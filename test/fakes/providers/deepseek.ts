import { openAIError, toolCallingAssistants, type ProviderRules } from './chat-provider-server.js';

/**
 * DeepSeek in thinking mode (https://api-docs.deepseek.com/guides/thinking_mode): reasoning comes
 * as `reasoning_content` beside the content; an assistant message that called tools must carry its
 * `reasoning_content` back in every later request, or the API answers 400. `logprobs` and
 * `top_logprobs` are refused by its reasoning model (https://api-docs.deepseek.com/guides/reasoning_model).
 */
export const deepseekRules: ProviderRules = {
  name: 'deepseek',
  refuse(body, produced) {
    if (body.reasoning_effort !== undefined && !['minimal', 'low', 'medium', 'high', 'xhigh', 'max', 'ultra'].includes(body.reasoning_effort)) return openAIError(400, `unknown reasoning_effort ${body.reasoning_effort}`, 'reasoning_effort');
    for (const field of ['logprobs', 'top_logprobs']) if (body[field] !== undefined && /reasoner/.test(body.model)) return openAIError(400, `${field} is not supported by ${body.model}`, field);
    for (const { index, message, callId } of toolCallingAssistants(body)) {
      const made = produced.find((reply) => reply.toolCallId === callId);
      if (made && message.reasoning_content !== made.fields.reasoning_content) {
        return openAIError(400, `The reasoning_content in the thinking mode must be passed back to the API (messages[${index}]).`, `messages[${index}].reasoning_content`);
      }
    }
    return undefined;
  },
  reasoning: (n) => ({ reasoning_content: `deepseek thought ${n}` }),
  reasoningDeltas: (n) => [{ reasoning_content: 'deepseek ' }, { reasoning_content: `thought ${n}` }],
};
