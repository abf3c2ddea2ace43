import { REASONING_EFFORTS, type ReasoningEffort } from '../core/request.js';

/** The effort to send for the one asked, and the warning that names a change. */
export interface MappedEffort {
  effort: ReasoningEffort;
  warning?: string;
}

const rank = (effort: ReasoningEffort): number => REASONING_EFFORTS.indexOf(effort);

/**
 * The level a model takes for the one asked: the same where the model has it, else the nearest on
 * the scale none < minimal < … < max, the lower of two equally near (cheaper), never `none` for a
 * request that asked for some reasoning. Undefined when the model takes no level at all.
 */
export function mapEffort(asked: ReasoningEffort, accepted: readonly ReasoningEffort[], model: string): MappedEffort | undefined {
  if (accepted.includes(asked)) return { effort: asked };
  const candidates = asked === 'none' ? accepted : accepted.filter((effort) => effort !== 'none');
  if (!candidates.length) return undefined;
  const nearest = candidates.reduce((best, effort) => {
    const distance = Math.abs(rank(effort) - rank(asked));
    const bestDistance = Math.abs(rank(best) - rank(asked));
    return distance < bestDistance || (distance === bestDistance && rank(effort) < rank(best)) ? effort : best;
  });
  return { effort: nearest, warning: `reasoning effort '${asked}' sent as '${nearest}': ${model} takes ${accepted.join(', ')}.` };
}
