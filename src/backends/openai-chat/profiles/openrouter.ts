import { metadataOf } from '../../../core/provider-metadata.js';
import { REASONING_DETAILS_KEY } from '../reasoning-details.js';
import { assistantPairs, type ChatProfile } from './profile.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * OpenRouter (https://openrouter.ai/docs/api-reference/chat-completion). Reasoning is asked for with
 * its own `reasoning` object, `{ effort }` or `{ max_tokens }`, for every model that reasons, not
 * only OpenAI's (https://openrouter.ai/docs/use-cases/reasoning-tokens); the `reasoning_details` a
 * reply carried go back, unchanged, on the assistant message they came with, so that a model
 * reasoning across tool calls sees its reasoning again (…#preserving-reasoning-blocks).
 * Prompt-cache breakpoints for its Anthropic and Gemini models are the backend's `cacheControl`.
 */
/**
 * The model families OpenRouter caches only at `cache_control` breakpoints on content parts:
 * Anthropic's and Google's (https://openrouter.ai/docs/features/prompt-caching). With the profile,
 * they get breakpoints as a backend declared with `cacheControl` does; other models cache by
 * prefix on their own.
 */
export const openrouterCachesAtBreakpoints = (model: string): boolean => /^(?:anthropic|google)\//i.test(model);

export const openrouterProfile: ChatProfile = {
  name: 'openrouter',
  doc: 'https://openrouter.ai/docs/use-cases/reasoning-tokens',
  apply(body, { request, forwarded, settings }) {
    // The backend's routing is the operator's: it holds over any the client set (https://openrouter.ai/docs/features/provider-routing).
    if (settings.providerRouting) body.provider = { ...(isObject(body.provider) ? body.provider : {}), ...settings.providerRouting };
    if (forwarded) return;
    const effort = request.reasoningEffort;
    if (request.reasoningBudget !== undefined) body.reasoning = { max_tokens: request.reasoningBudget };
    else if (effort) body.reasoning = { effort };
    // The object says it for every model; reasoning_effort, sent for OpenAI's, would say it twice.
    if (body.reasoning) delete body.reasoning_effort;
    for (const { wire, message } of assistantPairs(body, request)) {
      const details = message.content.flatMap((part) => {
        if (part.type !== 'reasoning') return [];
        const held = metadataOf(part.providerMetadata, 'openrouter')?.[REASONING_DETAILS_KEY];
        return Array.isArray(held) ? held : [];
      });
      if (details.length) wire.reasoning_details = details;
    }
  },
};
