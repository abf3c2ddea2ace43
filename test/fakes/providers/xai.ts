import { openAIError, type ProviderRules } from './chat-provider-server.js';

/**
 * xAI (https://docs.x.ai/docs/guides/reasoning): its reasoning models answer 400 to
 * `presence_penalty`, `frequency_penalty` and `stop`, and all but Grok 3 Mini to `reasoning_effort`.
 * Grok 3 Mini returns its reasoning as `reasoning_content`.
 */
export const xaiRules: ProviderRules = {
  name: 'xai',
  refuse(body) {
    if (!/^grok-(?:3-mini|4|code)/.test(body.model) || /non-reasoning/.test(body.model)) return undefined;
    for (const field of ['presence_penalty', 'frequency_penalty', 'stop']) {
      if (body[field] !== undefined) return openAIError(400, `Argument not supported on this model: ${field}`, field);
    }
    if (body.reasoning_effort !== undefined && !['low', 'high'].includes(body.reasoning_effort)) return openAIError(400, `reasoning_effort must be low or high, got ${body.reasoning_effort}`, 'reasoning_effort');
    if (body.reasoning_effort !== undefined && !/^grok-3-mini/.test(body.model)) return openAIError(400, 'Model does not support parameter reasoningEffort', 'reasoning_effort');
    return undefined;
  },
  reasoning: (n) => ({ reasoning_content: `grok thought ${n}` }),
  reasoningDeltas: (n) => [{ reasoning_content: `grok thought ${n}` }],
};
