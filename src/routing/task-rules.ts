import type { TaskConditions, TaskRule } from '../config/settings.js';
import type { CanonicalRequest } from '../core/request.js';
import { globMatches } from './model-pattern.js';

/** What task rules look at in a request, worked out only when a route has rules. */
export interface RequestTraits {
  model: string;
  background: boolean;
  thinking: boolean;
  /** Estimated input tokens. */
  contextTokens: number;
  image: boolean;
  webSearch: boolean;
}

/** Coding agents send their background work (titles, summaries, quick checks) to a small model: Claude Code uses Haiku. */
const SMALL_MODEL = /haiku/i;
/** Web search as each format offers it: Anthropic's `web_search_20250305`, Responses' `web_search` / `web_search_preview`. */
const WEB_SEARCH_TOOL = /^web_search/;

export function requestTraits(request: CanonicalRequest, contextTokens: number, droppedTools: readonly string[] = []): RequestTraits {
  return {
    model: request.model,
    background: SMALL_MODEL.test(request.model),
    thinking: (request.reasoningBudget ?? 0) > 0 || (request.reasoningEffort !== undefined && request.reasoningEffort !== 'none' && request.reasoningEffort !== 'minimal'),
    contextTokens,
    image: request.messages.some((message) =>
      message.content.some((part) => part.type === 'image' || (part.type === 'tool-result' && part.content.some((inner) => inner.type === 'image'))),
    ),
    // Every format's offer of search is decoded into request.webSearch (Chat's web_search_options too).
    webSearch: request.webSearch !== undefined || droppedTools.some((tool) => WEB_SEARCH_TOOL.test(tool)),
  };
}

/** Whether every condition the rule sets holds (a rule that sets none matches everything). */
function conditionsHold(when: TaskConditions, traits: RequestTraits): boolean {
  if (when.background !== undefined && when.background !== traits.background) return false;
  if (when.thinking !== undefined && when.thinking !== traits.thinking) return false;
  if (when.image !== undefined && when.image !== traits.image) return false;
  if (when.webSearch !== undefined && when.webSearch !== traits.webSearch) return false;
  if (when.contextAbove !== undefined && !(traits.contextTokens > when.contextAbove)) return false;
  if (when.model !== undefined && !globMatches(when.model, traits.model)) return false;
  return true;
}

/** The first rule, in the order configured, whose conditions all hold. */
export function firstMatchingRule(rules: readonly TaskRule[], traits: RequestTraits): TaskRule | undefined {
  // A rule a person wrote by hand without targets is skipped, never a chain of nothing.
  return rules.find((rule) => Array.isArray(rule.targets) && rule.targets.length > 0 && conditionsHold(rule.when ?? {}, traits));
}
