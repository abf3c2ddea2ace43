import { isDeepStrictEqual } from 'node:util';
import { openAIError, toolCallingAssistants, type ProviderRules } from './chat-provider-server.js';

/**
 * OpenRouter serving a model that reasons across tool calls
 * (https://openrouter.ai/docs/use-cases/reasoning-tokens): replies carry `reasoning` text and
 * `reasoning_details` blocks (a signed `reasoning.text`, a `reasoning.encrypted`), streamed in
 * pieces by `index`. An assistant message that called tools must carry its `reasoning_details` back
 * unchanged (…#preserving-reasoning-blocks); the model behind refuses the turn otherwise.
 */
const details = (n: number) => [
  { type: 'reasoning.text', text: `router thought ${n}`, signature: `sig-${n}`, format: 'anthropic-claude-v1', index: 0 },
  { type: 'reasoning.encrypted', data: `sealed-${n}`, format: 'anthropic-claude-v1', index: 1 },
];

export const openrouterRules: ProviderRules = {
  name: 'openrouter',
  refuse(body, produced) {
    if (body.provider !== undefined && (typeof body.provider !== 'object' || body.provider === null || Array.isArray(body.provider))) return openAIError(400, 'provider must be an object', 'provider');
    if (body.reasoning !== undefined && (typeof body.reasoning !== 'object' || body.reasoning === null)) return openAIError(400, 'reasoning must be an object', 'reasoning');
    for (const { index, message, callId } of toolCallingAssistants(body)) {
      const made = produced.find((reply) => reply.toolCallId === callId);
      if (made && !isDeepStrictEqual(message.reasoning_details, made.fields.reasoning_details)) {
        return openAIError(400, `messages.${index}: the reasoning blocks of an assistant turn that used tools must be passed back unmodified.`, `messages[${index}].reasoning_details`);
      }
    }
    return undefined;
  },
  reasoning: (n) => ({ reasoning: `router thought ${n}`, reasoning_details: details(n) }),
  reasoningDeltas: (n) => [
    { reasoning: 'router ', reasoning_details: [{ type: 'reasoning.text', text: 'router ', format: 'anthropic-claude-v1', index: 0 }] },
    { reasoning: `thought ${n}`, reasoning_details: [{ type: 'reasoning.text', text: `thought ${n}`, signature: `sig-${n}`, format: 'anthropic-claude-v1', index: 0 }] },
    { reasoning_details: [{ type: 'reasoning.encrypted', data: `sealed-${n}`, format: 'anthropic-claude-v1', index: 1 }] },
  ],
};
