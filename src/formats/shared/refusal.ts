import type { Finish } from '../../core/reply.js';

/**
 * What a client is told when the model declined (a refusal, Anthropic's `stop_details`): the
 * upstream's explanation, else its policy category, in the words a Chat `message.refusal` or a
 * Responses `refusal` content part carries. Undefined when the reply is no refusal.
 */
export function refusalText(finish: Finish | undefined): string | undefined {
  const refusal = finish?.refusal;
  if (!refusal) return undefined;
  return refusal.explanation ?? `The model declined to answer${refusal.category ? ` (policy category: ${refusal.category})` : ''}.`;
}
