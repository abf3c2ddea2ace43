import { mapEffort, type Capabilities } from '../../catalog/index.js';
import type { CanonicalRequest, ReasoningEffort } from '../../core/request.js';
import { thinkingAllowed, thinkingBudget } from './thinking-budget.js';

type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';
type Display = 'summarized' | 'omitted';

/** How thinking goes to this model, and what could not be sent as asked. */
export interface ThinkingPlan {
  thinking?: { type: 'enabled'; budget_tokens: number; display?: Display } | { type: 'adaptive'; display?: Display } | { type: 'disabled' };
  /** `output_config.effort`, for the models that take one. */
  effort?: Effort;
  /** The effort the request is sent with, for the sampling rules. */
  effortSent?: ReasoningEffort;
  warnings: string[];
}

/**
 * Thinking in the form the model takes (https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking,
 * /effort): adaptive with an effort where budgets are no longer taken (Opus 4.7, the Claude 5
 * family) and where the client named an effort but no budget (Opus and Sonnet 4.6); a budget
 * elsewhere, with the effort too where the model has one (Opus 4.5). A model the catalog does
 * not know gets a budget, as every thinking Claude before 4.6 takes.
 */
export function thinkingPlan(request: CanonicalRequest, maxTokens: number, capabilities: Capabilities | undefined, model: string): ThinkingPlan {
  const plan = plannedThinking(request, maxTokens, capabilities, model);
  return withDisplay(plan, request, capabilities, model);
}

/**
 * How the reasoning is shown (`thinking.display`, https://platform.claude.com/docs/en/build-with-claude/extended-thinking):
 * as the client asked, where thinking is on; Opus 5.5 and the Fable line omit it by default. A
 * client that asked for summaries and no thinking gets a model that always thinks asked for them,
 * and is told elsewhere that thinking is asked with an effort.
 */
function withDisplay(plan: ThinkingPlan, request: CanonicalRequest, capabilities: Capabilities | undefined, model: string): ThinkingPlan {
  const display = request.reasoningDisplay;
  if (!display) return plan;
  const thinking = plan.thinking;
  // Effort none sent as thinking (alwaysThinking) shows none of it: the client asked for no reasoning.
  if (thinking && thinking.type !== 'disabled') return thinking.display ? plan : { ...plan, thinking: { ...thinking, display } };
  if (display !== 'summarized' || request.reasoningEffort === 'none') return plan;
  if (capabilities?.reasoning?.canTurnOff === false) return { ...plan, thinking: { type: 'adaptive', display } };
  const why = capabilities && !capabilities.reasoning ? `${model} does not think` : 'the request named no reasoning effort; name one to have the thinking summarized';
  return { ...plan, warnings: [...plan.warnings, `reasoning summaries not requested from ${model}: ${why}.`] };
}

function plannedThinking(request: CanonicalRequest, maxTokens: number, capabilities: Capabilities | undefined, model: string): ThinkingPlan {
  const asked = request.reasoningBudget !== undefined || (request.reasoningEffort !== undefined && request.reasoningEffort !== 'none');
  const reasoning = capabilities?.reasoning;
  if (!asked) {
    if (request.reasoningEffort !== 'none' || !reasoning) return { warnings: [] };
    // Effort none: thinking off, said outright, since the Claude 5 family thinks when a request names no thinking.
    if (reasoning.canTurnOff) return { thinking: { type: 'disabled' }, warnings: [] };
    return alwaysThinking(reasoning.efforts, model);
  }
  if (capabilities && !reasoning) return { warnings: [`reasoning not sent: ${model} does not think.`] };
  // A model that cannot stop thinking thinks whatever else the request holds: its effort is still the client's.
  if (!thinkingAllowed(request) && reasoning?.canTurnOff !== false) return { warnings: [] };
  const warnings: string[] = [];
  const mapped = request.reasoningEffort && reasoning ? mapEffort(request.reasoningEffort, reasoning.efforts, model) : undefined;
  if (mapped?.warning) warnings.push(mapped.warning);
  const effort = mapped ? (mapped.effort as Effort) : undefined;
  const adaptive = reasoning?.adaptive === true && (!reasoning.budget || request.reasoningBudget === undefined);
  if (adaptive) {
    if (request.reasoningBudget !== undefined) warnings.push(`thinking budget of ${request.reasoningBudget} tokens not sent: ${model} takes adaptive thinking only${effort ? `, at effort '${effort}'` : ''}.`);
    return { thinking: { type: 'adaptive' }, ...(effort ? { effort, effortSent: effort } : {}), warnings };
  }
  const budget = thinkingBudget(request, maxTokens);
  if (budget === undefined) {
    warnings.push(`thinking not sent: max_tokens ${maxTokens} leaves no room for Anthropic's 1,024-token minimum budget.`);
    return { warnings };
  }
  return { thinking: { type: 'enabled', budget_tokens: budget }, ...(effort ? { effort, effortSent: effort } : {}), warnings };
}

/**
 * Effort none on a model that always thinks (Opus 5.5, the Fable line: "thinking.type.disabled" is
 * refused, https://platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5#thinking-cant-be-disabled):
 * the nearest request it takes is adaptive thinking at its lowest effort, with the reasoning
 * omitted from the reply (`display: "omitted"`), so a client that asked for none gets no reasoning text.
 */
function alwaysThinking(efforts: readonly ReasoningEffort[], model: string): ThinkingPlan {
  const lowest = efforts[0] as Effort | undefined;
  const at = lowest ? ` at effort '${lowest}'` : '';
  return {
    thinking: { type: 'adaptive', display: 'omitted' },
    ...(lowest ? { effort: lowest, effortSent: lowest } : {}),
    warnings: [`reasoning effort 'none' sent as adaptive thinking${at}, its reasoning not shown: ${model} always thinks (it refuses thinking.type.disabled).`],
  };
}
