import { assistantPairs, dropRefused, reasoningTextOf, type ChatProfile } from './profile.js';

/**
 * DeepSeek (https://api-docs.deepseek.com/guides/thinking_mode). In thinking mode the reasoning
 * comes as `reasoning_content` beside the content. Between two user messages where the model called
 * tools, every assistant message's `reasoning_content` must be sent back, in that request and all
 * later ones, or the API answers 400; where it called none, the reasoning is ignored if sent, so it
 * is not. The effort a client asks for goes as `reasoning_effort`, whatever the model's name.
 * `logprobs` and `top_logprobs` are refused by its reasoning model
 * (https://api-docs.deepseek.com/guides/reasoning_model).
 */
export const deepseekProfile: ChatProfile = {
  name: 'deepseek',
  doc: 'https://api-docs.deepseek.com/guides/thinking_mode',
  apply(body, { request, forwarded, warnings }) {
    if (/reasoner/i.test(body.model)) dropRefused(body, ['logprobs', 'top_logprobs'], 'DeepSeek refuses it for its reasoning model', warnings);
    if (forwarded) return;
    // Thinking effort is DeepSeek's reasoning_effort, which takes every level a client may ask for and maps it itself.
    if (request.reasoningEffort) body.reasoning_effort = request.reasoningEffort;
    const pairs = assistantPairs(body, request);
    const calledTools = new Set(pairs.filter(({ message }) => message.content.some((part) => part.type === 'tool-call')).map(({ turn }) => turn));
    for (const { wire, message, turn } of pairs) {
      if (!calledTools.has(turn)) continue;
      const reasoning = reasoningTextOf(message);
      if (reasoning !== undefined) wire.reasoning_content = reasoning;
    }
  },
};
