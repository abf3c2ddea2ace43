import { openAIError, type ProviderRules } from './chat-provider-server.js';

/**
 * Groq (https://console.groq.com/docs/openai): `logprobs`, `logit_bias`, `top_logprobs` and
 * `messages[].name` are answered with a 400, and so is `n` other than 1.
 */
export const groqRules: ProviderRules = {
  name: 'groq',
  refuse(body) {
    for (const field of ['logprobs', 'logit_bias', 'top_logprobs']) if (body[field] !== undefined) return openAIError(400, `'${field}' : property '${field}' is unsupported`, field);
    if (body.n !== undefined && body.n !== 1) return openAIError(400, "'n' : number must be at most 1", 'n');
    const named = (body.messages as Array<Record<string, unknown>>).findIndex((message) => message.name !== undefined);
    if (named !== -1) return openAIError(400, `'messages.${named}.name' : property 'name' is unsupported`, `messages.${named}.name`);
    return undefined;
  },
  reasoning: () => ({}),
  reasoningDeltas: () => [],
};
