import { describe, expect, it } from 'vitest';
import { capabilitiesOf, CAPABILITY_ROWS, readsReasoningOf } from '../../src/catalog/index.js';
import type { BackendType } from '../../src/core/backend-types.js';

/**
 * The newest generation's rules, one row per model as its vendor page states them. A new model is
 * one catalog row (src/catalog/model-capabilities.ts) and one row here; the translators and the
 * fakes read the catalog, so nothing else changes.
 */
interface RuleRow {
  type: BackendType;
  model: string;
  /** Takes tool_choice `any` / a named tool. */
  forcedToolChoice: boolean;
  /** thinking.type `disabled` taken. */
  thinkingOff: boolean;
  /** A conversation may end with the assistant's words. */
  prefill: boolean;
  /** Takes `fallbacks` (server-side fallback). */
  serverFallbacks: boolean;
  /** Models whose reasoning it reads back, and models whose reasoning it does not. */
  reads: string[];
  readsNot: string[];
  /** Models that read this one's reasoning back, and models that do not (a page's "only X reads Y's thinking blocks"). */
  readBy?: string[];
  notReadBy?: string[];
  /** Explicit `prompt_cache_breakpoint` on content blocks. */
  promptCacheBreakpoints?: boolean;
  page: string;
}

const RULES: RuleRow[] = [
  {
    type: 'anthropic',
    model: 'claude-fable-5-2',
    forcedToolChoice: false,
    thinkingOff: false,
    prefill: false,
    serverFallbacks: true,
    reads: ['claude-mythos-5-2'],
    readsNot: [],
    readBy: ['claude-mythos-5-2'],
    notReadBy: ['claude-fable-5-1', 'claude-mythos-5-1', 'claude-opus-5-5', 'claude-fable-5'],
    page: 'https://platform.claude.com/docs/en/models/fable-5-2/whats-new-fable-5-2',
  },
  {
    type: 'anthropic',
    model: 'claude-opus-5-5',
    forcedToolChoice: false,
    thinkingOff: false,
    prefill: false,
    serverFallbacks: true,
    reads: ['claude-opus-5', 'claude-opus-4-8', 'claude-sonnet-4-6', 'claude-haiku-4-5'],
    readsNot: ['claude-fable-5', 'claude-fable-5-1', 'claude-mythos-5-1'],
    readBy: ['claude-fable-5-1', 'claude-mythos-5-1'],
    notReadBy: ['claude-opus-5', 'claude-opus-4-8', 'claude-fable-5'],
    page: 'https://platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5',
  },
  {
    type: 'anthropic',
    model: 'claude-fable-5-1',
    forcedToolChoice: false,
    thinkingOff: false,
    prefill: false,
    serverFallbacks: true,
    reads: ['claude-opus-5', 'claude-fable-5', 'claude-opus-4-8', 'claude-opus-5-5', 'claude-mythos-5-1'],
    readsNot: [],
    readBy: ['claude-mythos-5-1'],
    notReadBy: ['claude-fable-5', 'claude-opus-5', 'claude-opus-4-8', 'claude-opus-5-5'],
    page: 'https://platform.claude.com/docs/en/models/fable-5-1/whats-new-fable-5-1',
  },
  {
    type: 'anthropic',
    model: 'claude-fable-5',
    forcedToolChoice: true,
    thinkingOff: false,
    prefill: false,
    serverFallbacks: true,
    reads: ['claude-opus-4-8'],
    readsNot: ['claude-fable-5-1', 'claude-opus-5-5'],
    page: 'https://platform.claude.com/docs/en/models/fable-5-1/whats-new-fable-5-1',
  },
  {
    type: 'anthropic',
    model: 'claude-opus-5',
    forcedToolChoice: true,
    thinkingOff: true,
    prefill: false,
    serverFallbacks: true,
    reads: ['claude-opus-4-8', 'claude-sonnet-5'],
    readsNot: ['claude-fable-5-1', 'claude-opus-5-5'],
    page: 'https://platform.claude.com/docs/en/about-claude/models/whats-new-opus-5',
  },
  {
    type: 'anthropic',
    model: 'claude-opus-4-8',
    forcedToolChoice: true,
    thinkingOff: true,
    prefill: false,
    serverFallbacks: false,
    reads: ['claude-sonnet-4-6', 'claude-opus-4-7'],
    readsNot: ['claude-opus-5', 'claude-opus-5-5', 'claude-fable-5-1'],
    page: 'https://platform.claude.com/docs/en/about-claude/models/migration-guide',
  },
  {
    type: 'openai-responses',
    model: 'gpt-5.6-sol',
    forcedToolChoice: true,
    thinkingOff: true,
    prefill: true,
    serverFallbacks: false,
    reads: ['gpt-5.2', 'gpt-5'],
    readsNot: ['claude-opus-5-5', 'gemini-3-pro-preview'],
    promptCacheBreakpoints: true,
    page: 'https://platform.openai.com/docs/guides/prompt-caching',
  },
  {
    type: 'openai-responses',
    model: 'gpt-5.2',
    forcedToolChoice: true,
    thinkingOff: true,
    prefill: true,
    serverFallbacks: false,
    reads: ['gpt-5.6'],
    readsNot: ['claude-fable-5-1'],
    promptCacheBreakpoints: false,
    page: 'https://platform.openai.com/docs/guides/reasoning',
  },
];

describe.each(RULES.map((row) => [row.model, row] as const))('the catalog row for %s', (_model, row) => {
  const capabilities = capabilitiesOf(row.type, row.model)!;
  const catalogRow = CAPABILITY_ROWS.find((candidate) => candidate.types.includes(row.type) && candidate.family.test(row.model));

  it('follows its vendor page, and says what that page says', () => {
    expect(catalogRow?.doc).toBe(row.page);
    expect(capabilities.forcedToolChoice !== false).toBe(row.forcedToolChoice);
    expect(capabilities.reasoning?.canTurnOff !== false).toBe(row.thinkingOff);
    expect(capabilities.prefill !== false).toBe(row.prefill);
    expect(capabilities.serverFallbacks === true).toBe(row.serverFallbacks);
    if (row.promptCacheBreakpoints !== undefined) expect(capabilities.promptCacheBreakpoints === true).toBe(row.promptCacheBreakpoints);
  });

  it('reads back the reasoning of the models its page names, and not that of the others', () => {
    expect(readsReasoningOf(row.type, row.model, row.model)).toBe(true);
    for (const writer of row.reads) expect(readsReasoningOf(row.type, row.model, writer), `${row.model} reads ${writer}`).toBe(true);
    for (const writer of row.readsNot) expect(readsReasoningOf(row.type, row.model, writer), `${row.model} reads ${writer}`).toBe(false);
    for (const reader of row.readBy ?? []) expect(readsReasoningOf(row.type, reader, row.model), `${reader} reads ${row.model}`).toBe(true);
    for (const reader of row.notReadBy ?? []) expect(readsReasoningOf(row.type, reader, row.model), `${reader} reads ${row.model}`).toBe(false);
  });
});

describe('the Anthropic rows', () => {
  it('refuse sampling from API version 2026-10-21, every one of them', () => {
    for (const row of CAPABILITY_ROWS.filter((candidate) => candidate.types.includes('anthropic'))) expect(row.capabilities.samplingRefusedFrom, String(row.family)).toBe('2026-10-21');
  });

  it('give every reasoning model a line, so a blob one writes is judged by the next', () => {
    for (const row of CAPABILITY_ROWS.filter((candidate) => candidate.capabilities.reasoning)) expect(row.capabilities.reasoningReads, String(row.family)).toBeDefined();
  });

  it('say nothing of a model they do not know: its reasoning goes as the provider rule says', () => {
    expect(readsReasoningOf('anthropic', 'claude-opus-5-5', 'my-llama')).toBeUndefined();
    expect(readsReasoningOf('anthropic', 'claude-next-9', 'claude-opus-5-5')).toBeUndefined();
  });
});
