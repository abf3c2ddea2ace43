import { HOUR, MINUTE, cumulativeTokens, part, prefixHashes, promptRecord, type PromptCache, type PromptPart, type PromptRecord } from './prompt-cache.js';

/**
 * Anthropic's prompt cache, after https://platform.claude.com/docs/en/build-with-claude/prompt-caching:
 * - Nothing is cached without `cache_control`: on a block (tools, system, messages content) or at
 *   the top level (automatic caching, which marks the last block and takes one of the slots).
 * - The prefix is tools, then system, then messages, up to and including the marked block; a
 *   change anywhere before a block breaks every entry from there on. Changing tool_choice or the
 *   thinking settings breaks the messages' entries only (a zero-token settings part before them).
 * - At most 4 breakpoints; a 5th is a 400 "A maximum of 4 blocks with cache_control may be
 *   provided. Found 5.". Lifetimes are 5 minutes (default) or `ttl: '1h'`, every hit refreshing
 *   the entry at no cost; a 1h breakpoint may not follow a 5m one in tools, system, messages order.
 * - Each breakpoint looks for the longest cached prefix at its own block and the blocks before it,
 *   20 checks in all, then gives up; entries are written only at breakpoints, and only when the
 *   prefix reaches the model's minimum ("Shorter prompts cannot be cached, even if marked").
 * - usage: cache_read_input_tokens = the prefix read (A); of what is written, up to the last 1h
 *   breakpoint (B) is `ephemeral_1h_input_tokens`, from there to the last breakpoint (C)
 *   `ephemeral_5m_input_tokens`; their sum is cache_creation_input_tokens; input_tokens is what
 *   follows the last breakpoint.
 */

export const ANTHROPIC_MAX_BREAKPOINTS = 4;
export const ANTHROPIC_LOOKBACK_CHECKS = 20;
export const ANTHROPIC_TTL_MS = { '5m': 5 * MINUTE, '1h': HOUR } as const;
type Ttl = keyof typeof ANTHROPIC_TTL_MS;

/**
 * Minimum cacheable prompt length: 4,096 for Opus 4.5 to 4.7 and Haiku 4.5, 2,048 for Haiku 3 and
 * 3.5, 1,024 for the Sonnets, Opus 4 and 4.1 (and any model this table does not know).
 */
export function anthropicMinimumTokens(model: string): number {
  if (/opus-4[-.][5-9](?!\d)/.test(model) || /haiku-4/.test(model)) return 4096;
  if (/haiku-3|3-5-haiku|3-haiku/.test(model)) return 2048;
  return 1024;
}

interface Breakpoint {
  index: number;
  ttl: Ttl;
  /** Where its cache_control sits, as Anthropic names it in errors (`system.1.cache_control`). */
  path: string;
  control: unknown;
}

export interface AnthropicPrompt {
  parts: PromptPart[];
  breakpoints: Breakpoint[];
  /** What the API answers with a 400 invalid_request_error instead, if it refuses the request. */
  problem?: string;
}

/** The request as Anthropic's cache sees it: one part per tool, system block and content block. */
export function anthropicPrompt(body: Record<string, any>): AnthropicPrompt {
  const parts: PromptPart[] = [];
  const breakpoints: Breakpoint[] = [];
  const add = (kind: PromptPart['kind'], label: string, value: unknown, block?: unknown, path = '') => {
    parts.push(part(kind, label, value));
    const control = controlOf(block);
    if (control !== undefined) breakpoints.push({ index: parts.length - 1, ttl: '5m', path, control });
  };
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  list(body.tools).forEach((tool, i) => add('tool', `tools[${i}]`, withoutCacheControl(tool), tool, `tools.${i}.cache_control`));
  // A string is shorthand for one text block, and is cached as that block.
  list(typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : body.system).forEach((block, i) =>
    add('system', `system[${i}]`, withoutCacheControl(block), block, `system.${i}.cache_control`),
  );
  parts.push(part('settings', 'tool_choice+thinking', { tool_choice: body.tool_choice ?? null, thinking: body.thinking ?? null }));
  list(body.messages).forEach((message: any, m) => {
    const content = typeof message?.content === 'string' ? [{ type: 'text', text: message.content }] : message?.content;
    if (!Array.isArray(content)) return add('message', `messages[${m}]`, { role: message?.role, content });
    content.forEach((block: unknown, j: number) => {
      // The role rides on a message's first block, so a block moved to another turn changes the prefix.
      const value = j === 0 ? { role: message.role, block: withoutCacheControl(block) } : withoutCacheControl(block);
      add('message', `messages[${m}].content[${j}]`, value, block, `messages.${m}.content.${j}.cache_control`);
    });
  });
  // Automatic caching marks the last block; it takes a slot of its own even there.
  const automatic = controlOf(body);
  const slots = breakpoints.length + (automatic !== undefined ? 1 : 0);
  if (automatic !== undefined && !breakpoints.some((b) => b.index === parts.length - 1)) {
    breakpoints.push({ index: parts.length - 1, ttl: '5m', path: 'cache_control', control: automatic });
  }
  return { parts, breakpoints, ...problemWith(breakpoints, slots) };
}

/** The checks the API makes on cache_control before it answers. */
function problemWith(breakpoints: Breakpoint[], slots: number): { problem?: string } {
  if (slots > ANTHROPIC_MAX_BREAKPOINTS) return { problem: `A maximum of ${ANTHROPIC_MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${slots}.` };
  let sawFiveMinutes = false;
  for (const breakpoint of breakpoints) {
    const control = breakpoint.control as Record<string, unknown>;
    // The wording of these two is this fake's; the API refuses both with a 400.
    if (typeof control !== 'object' || Array.isArray(control) || control.type !== 'ephemeral') return { problem: `${breakpoint.path}.type: Input should be 'ephemeral'` };
    if (control.ttl !== undefined && control.ttl !== '5m' && control.ttl !== '1h') return { problem: `${breakpoint.path}.ttl: Input should be '5m' or '1h'` };
    breakpoint.ttl = (control.ttl ?? '5m') as Ttl;
    if (breakpoint.ttl === '1h' && sawFiveMinutes) {
      return {
        problem: `${breakpoint.path}.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: \`tools\`, \`system\`, \`messages\`.`,
      };
    }
    sawFiveMinutes ||= breakpoint.ttl === '5m';
  }
  return {};
}

/** Reads and writes the cache for one request, and says what its usage reports. */
export function anthropicCache(store: PromptCache, scope: string, model: string, prompt: AnthropicPrompt): PromptRecord {
  const { parts, breakpoints } = prompt;
  if (breakpoints.length === 0) return promptRecord(model, parts, { cachedTokens: 0, cachedParts: 0, cacheWriteTokens: 0 });
  const hashes = prefixHashes(parts);
  const cumulative = cumulativeTokens(parts);
  const through = (index: number) => (index < 0 ? 0 : cumulative[index]!);

  let readAt = -1;
  for (const breakpoint of breakpoints) {
    let checks = 0;
    for (let index = breakpoint.index; index >= 0 && checks < ANTHROPIC_LOOKBACK_CHECKS; index--) {
      if (parts[index]!.kind === 'settings') continue;
      checks++;
      if (store.has(scope, hashes[index]!)) {
        readAt = Math.max(readAt, index);
        break;
      }
    }
  }
  if (readAt >= 0) store.refresh(scope, hashes[readAt]!, ANTHROPIC_TTL_MS['5m']);

  const minimum = anthropicMinimumTokens(model);
  const written: Breakpoint[] = [];
  for (const breakpoint of breakpoints) {
    if (breakpoint.index <= readAt) store.refresh(scope, hashes[breakpoint.index]!, ANTHROPIC_TTL_MS[breakpoint.ttl]);
    else if (through(breakpoint.index) >= minimum) {
      store.write(scope, parts, breakpoint.index, ANTHROPIC_TTL_MS[breakpoint.ttl]);
      written.push(breakpoint);
    }
  }
  const a = through(readAt);
  const lastHour = written.filter((b) => b.ttl === '1h').at(-1);
  const b = lastHour ? through(lastHour.index) : a;
  const c = written.length ? through(written.at(-1)!.index) : a;
  return promptRecord(model, parts, { cachedTokens: a, cachedParts: readAt + 1, cacheWriteTokens: c - a, cacheWriteByTtl: { '1h': b - a, '5m': c - b } });
}

/** A block's cache_control; null, as the SDK types allow, marks nothing. */
function controlOf(block: unknown): unknown {
  if (block === null || typeof block !== 'object' || Array.isArray(block)) return undefined;
  const control = (block as { cache_control?: unknown }).cache_control;
  return control === null ? undefined : control;
}

/** cache_control marks where to cache; it is not part of what is cached. */
function withoutCacheControl(block: unknown): unknown {
  if (block === null || typeof block !== 'object' || Array.isArray(block) || !('cache_control' in block)) return block;
  const { cache_control: _ignored, ...rest } = block as Record<string, unknown>;
  return rest;
}
