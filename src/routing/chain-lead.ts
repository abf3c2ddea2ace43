import { formatTarget, type Target } from './target.js';
import { WeightedChoice } from './weighted-choice.js';

const balanced = new WeightedChoice();

/**
 * The weighted target drawn to lead this chain (smooth weighted round-robin, counted per chain and
 * its weights), or undefined when no target of it is weighted. Called once per new session, and
 * once per request for a request without a session.
 */
export function drawLead(targets: readonly Target[]): Target | undefined {
  let weighted: Array<readonly [string, number]> | undefined;
  for (const target of targets) if (target.weight !== undefined) (weighted ??= []).push([formatTarget(target), target.weight]);
  if (!weighted) return undefined;
  const picked = balanced.pick(weighted.map(([text, weight]) => `${text}=${weight}`).join(','), weighted);
  return picked === undefined ? undefined : targets.find((target) => target.weight !== undefined && formatTarget(target) === picked);
}

/** The chain with `lead` first and the others behind it in their order, as fallbacks. */
export function leading(targets: Target[], lead: Target | undefined): Target[] {
  if (!lead || targets[0] === lead) return targets;
  return [lead, ...targets.filter((target) => target !== lead)];
}
