import { dropRefused, type ChatProfile } from './profile.js';

/** xAI's reasoning models: Grok 3 Mini, Grok 4 and later, Grok Code; not their `-non-reasoning` variants. */
const REASONING = /^(?:[\w.-]+\/)?grok-(?:3-mini|4|code)/i;
/** Of those, the ones documented to take `reasoning_effort`. */
const TAKES_EFFORT = /^(?:[\w.-]+\/)?grok-3-mini/i;

/**
 * xAI (https://docs.x.ai/docs/guides/reasoning): its reasoning models answer 400 to
 * `presence_penalty`, `frequency_penalty` and `stop`, and all but Grok 3 Mini to `reasoning_effort`.
 * They are left out, each named in a warning.
 */
export const xaiProfile: ChatProfile = {
  name: 'xai',
  doc: 'https://docs.x.ai/docs/guides/reasoning',
  apply(body, { request, forwarded, warnings }) {
    if (!REASONING.test(body.model) || /non-reasoning/i.test(body.model)) return;
    // Grok 3 Mini takes low or high (https://docs.x.ai/docs/guides/reasoning): the client's level, rounded to one of them.
    if (!forwarded && request.reasoningEffort && TAKES_EFFORT.test(body.model)) body.reasoning_effort = request.reasoningEffort === 'minimal' || request.reasoningEffort === 'low' ? 'low' : 'high';
    const why = `xAI refuses it for the reasoning model ${body.model}`;
    dropRefused(body, ['presence_penalty', 'frequency_penalty', 'stop'], why, warnings);
    if (!TAKES_EFFORT.test(body.model)) dropRefused(body, ['reasoning_effort'], why, warnings);
  },
};
