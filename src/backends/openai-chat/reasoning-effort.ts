import { capabilitiesOf, mapEffort, unsentSampling, type SamplingSetting } from '../../catalog/index.js';
import type { BackendType } from '../../core/backend-types.js';
import type { CanonicalRequest, ReasoningEffort } from '../../core/request.js';

/** The levels OpenAI's API names (`reasoning_effort`, `reasoning.effort`): https://platform.openai.com/docs/api-reference/responses/create#responses-create-reasoning */
const OPENAI_EFFORTS: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

/** What goes to an OpenAI upstream for reasoning and sampling, and the warnings naming what did not. */
export interface OpenAiReasoning {
  effort?: ReasoningEffort;
  /** Sampling settings to leave out. */
  unsent: SamplingSetting[];
  warnings: string[];
}

/**
 * The effort an OpenAI model takes for the one asked, one to one where it has the level and the
 * nearest otherwise (gpt-5 has minimal but not none; gpt-5.1 none but not minimal; xhigh only
 * from gpt-5.1-codex-max), and the sampling it refuses at that effort (reasoning models refuse
 * temperature and top_p; gpt-5.1 and later take them at effort none). A model the catalog does not
 * know: on Chat Completions no effort, which compatible servers refuse for models that do not
 * reason; on the Responses API the level as asked, within the API's own scale.
 */
export function openAiReasoning(request: CanonicalRequest, type: BackendType, model: string): OpenAiReasoning {
  const capabilities = capabilitiesOf(type, model);
  const warnings: string[] = [];
  let effort: ReasoningEffort | undefined;
  const asked = request.reasoningEffort;
  if (asked !== undefined) {
    const efforts = capabilities ? (capabilities.reasoning?.efforts ?? []) : type === 'openai-responses' ? OPENAI_EFFORTS : [];
    const mapped = efforts.length ? mapEffort(asked, efforts, model) : undefined;
    if (mapped) {
      effort = mapped.effort;
      if (mapped.warning) warnings.push(mapped.warning);
    } else if (asked !== 'none' || capabilities?.reasoning) {
      const why = !capabilities ? 'the model catalog does not know whether it reasons' : capabilities.reasoning ? 'it takes no effort setting' : 'it does not reason';
      warnings.push(`reasoning effort '${asked}' not sent to ${model}: ${why}.`);
    }
  }
  // A budget in tokens (Anthropic's budget_tokens) is Anthropic's and Gemini's: OpenAI's models take the effort it came with.
  if (request.reasoningBudget !== undefined && !capabilities?.reasoning?.budget) {
    warnings.push(`thinking budget of ${request.reasoningBudget} tokens not sent to ${model}: it takes a reasoning effort, not a budget${effort ? `; sent effort '${effort}'` : ''}.`);
  }
  const sampling = unsentSampling(request, capabilities, model, effort);
  if (sampling.warning) warnings.push(sampling.warning);
  return { ...(effort ? { effort } : {}), unsent: sampling.settings, warnings };
}
