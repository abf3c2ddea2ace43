import { anthropicPrompt } from '../../fakes/anthropic-prompt-cache.js';
import { chatBreakpointPrompt } from '../../fakes/chat-breakpoint-cache.js';
import { startAnthropicUpstream } from '../../fakes/anthropic-upstream.js';
import { OPENAI_CACHE_STEP, OPENAI_MINIMUM_TOKENS, geminiMinimumTokens } from '../../fakes/automatic-prompt-cache.js';
import { startGeminiUpstream, type GeminiTurn } from '../../fakes/gemini-upstream.js';
import { startOpenAIChatUpstream } from '../../fakes/openai-chat-upstream.js';
import { startOpenAIResponsesUpstream } from '../../fakes/openai-responses-upstream.js';
import { PromptCache, type PromptPart, type PromptRecord } from '../../fakes/prompt-cache.js';
import { geminiParts, openAIChatParts, openAIResponsesParts } from '../../fakes/prompt-parts.js';
import type { ScriptedTurn } from '../../fakes/scripted-turn.js';
import type { TestRouter } from '../../helpers/router.js';
import { SKU, UPSTREAM_KEY } from '../support.js';
import type { SessionPlan, UpstreamType } from './plan.js';

/** A cache-aware fake of each upstream type, answering a session's plan turn by turn. */
export interface PlannedUpstream {
  url: string;
  requests: Array<{ body: any }>;
  prompts: PromptRecord[];
  close(): Promise<void>;
}

const MODELS: Record<Exclude<UpstreamType, 'openai-chat'>, string> = { 'openai-responses': 'gpt-5', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-flash' };

/** A backend declared to take cache_control stands for OpenRouter serving Claude, which caches only at breakpoints. */
const OPENROUTER_CLAUDE = 'anthropic/claude-sonnet-4.5';

export const upstreamModel = (type: UpstreamType, plan: SessionPlan): string => (type !== 'openai-chat' ? MODELS[type] : plan.cacheControlBackend ? OPENROUTER_CLAUDE : plan.chatModel);

export async function startPlannedUpstream(type: UpstreamType, plan: SessionPlan): Promise<PlannedUpstream> {
  const answer = (body: unknown, index: number): ScriptedTurn & GeminiTurn => {
    const reply = plan.turns[index]!.reply;
    // Claude with thinking on opens every answer with a thinking block.
    const reasoning = reply.reasoning ?? (type === 'anthropic' && (body as { thinking?: { type?: string } }).thinking?.type === 'enabled' ? 'Considering the request.' : undefined);
    return {
      ...(reasoning !== undefined ? { reasoning: { text: reasoning } } : {}),
      ...(reply.text !== undefined ? { text: reply.text } : {}),
      ...(reply.calls.length ? { toolCalls: reply.calls.map((call) => ({ name: call.tool, arguments: call.args })) } : {}),
      signThoughts: plan.geminiSignThoughts,
    };
  };
  // A store of the session's own: nothing cached by another run can be read.
  const options = { apiKey: UPSTREAM_KEY, promptCache: new PromptCache(), fragmentBytes: 11 };
  switch (type) {
    case 'openai-chat':
      return startOpenAIChatUpstream(answer, { ...options, promptCacheRules: plan.cacheControlBackend ? 'breakpoints' : 'automatic' });
    case 'openai-responses':
      return startOpenAIResponsesUpstream(answer, options);
    case 'anthropic':
      return startAnthropicUpstream(answer, options);
    case 'gemini':
      return startGeminiUpstream(answer, { ...options, callIds: plan.geminiCallIds });
  }
}

/** Points the SKU at the fake, through a backend of the type (declaring cache_control when the plan says). */
export function routeTo(router: TestRouter, type: UpstreamType, url: string, plan: SessionPlan): void {
  router.config.update((settings) => {
    settings.backends.prefix = { type, baseUrl: url, apiKey: UPSTREAM_KEY, ...(type === 'openai-chat' && plan.cacheControlBackend ? { cacheControl: true } : {}) };
    settings.routes[SKU] = [`prefix:${upstreamModel(type, plan)}`];
  });
}

/** The prompt as the fake split it, for showing what changed. */
export function promptParts(type: UpstreamType, plan: SessionPlan, body: any): PromptPart[] {
  switch (type) {
    case 'openai-chat':
      return plan.cacheControlBackend ? chatBreakpointPrompt(body).parts : openAIChatParts(body);
    case 'openai-responses':
      return openAIResponsesParts(body);
    case 'anthropic':
      return anthropicPrompt(body).parts;
    case 'gemini':
      return geminiParts(body);
  }
}

/**
 * The fewest tokens turn k+1 must read from the cache when it repeats all of turn k's prompt, as
 * going direct would: OpenAI serves the shared prefix in steps of 128 from 1,024 tokens; Gemini's
 * implicit cache serves it whole above the model's minimum; Anthropic (and OpenRouter's Claude)
 * reads up to the breakpoint where turn k wrote, its last block.
 */
export function expectedCacheRead(type: UpstreamType, plan: SessionPlan, previous: PromptRecord): number {
  switch (type) {
    case 'openai-chat':
      if (plan.cacheControlBackend) return previous.inputTokens;
      return previous.inputTokens < OPENAI_MINIMUM_TOKENS ? 0 : Math.floor(previous.inputTokens / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP;
    case 'openai-responses':
      return previous.inputTokens < OPENAI_MINIMUM_TOKENS ? 0 : Math.floor(previous.inputTokens / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP;
    case 'gemini':
      return previous.inputTokens < geminiMinimumTokens(previous.model) ? 0 : previous.inputTokens;
    case 'anthropic':
      return previous.inputTokens;
  }
}
