import { createHash } from 'node:crypto';

/**
 * The provider-neutral part of the cache-aware fakes: a deterministic tokenizer, the prompt as
 * ordered parts, and a store of cached prompt prefixes whose lifetimes run on an injectable clock.
 * Each provider's rules (what is cached, when, and how it is reported) live beside it:
 * automatic-prompt-cache.ts (OpenAI, Gemini) and anthropic-prompt-cache.ts.
 */

export interface Clock {
  /** Milliseconds, as Date.now(). */
  now(): number;
}

export interface ManualClock extends Clock {
  advance(ms: number): void;
}

/** A clock that moves only when a test says so. */
export function manualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let time = start;
  return {
    now: () => time,
    advance(ms) {
      time += ms;
    },
  };
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/** The fakes' tokenizer: about four characters a token, as their usage estimates have always been. */
export const CHARS_PER_TOKEN = 4;

export function tokensOf(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * One piece of the prompt as the provider renders it, in prefix order: a tool definition, a system
 * block, a message (OpenAI, Gemini) or one content block of a message (Anthropic, whose cache works
 * on blocks). `text` is what the prefix is compared over: the part's JSON as sent, key order
 * included, so a re-serialised part breaks the prefix from there on even where a provider's
 * template might not notice. A `settings` part has no tokens; it carries request settings that the
 * provider folds into the prefix (Anthropic's tool_choice and thinking).
 */
export interface PromptPart {
  kind: 'tool' | 'schema' | 'system' | 'message' | 'settings';
  /** Where the part sits in the request, e.g. `tools[2]`, `system[1]`, `messages[3].content[0]`. */
  label: string;
  text: string;
  tokens: number;
}

export function part(kind: PromptPart['kind'], label: string, value: unknown): PromptPart {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return { kind, label, text, tokens: kind === 'settings' ? 0 : tokensOf(text) };
}

/** What one request's prompt looked like and what the cache did with it, for tests to read. */
export interface PromptRecord {
  model: string;
  /** OpenAI's `prompt_cache_key`, when the request sent one. */
  cacheKey?: string;
  parts: Array<{ kind: PromptPart['kind']; label: string; tokens: number; hash: string }>;
  /** Every prompt token, cached or not (OpenAI's prompt_tokens, Gemini's promptTokenCount). */
  inputTokens: number;
  /** Tokens served from the cache. */
  cachedTokens: number;
  /**
   * Tokens newly stored by this request: Anthropic reports them (by lifetime) as cache creation;
   * OpenAI and Gemini store without reporting it, so their fakes leave it out of usage.
   */
  cacheWriteTokens: number;
  cacheWriteByTtl: { '5m': number; '1h': number };
  /** How many leading parts the cached tokens cover whole. */
  cachedParts: number;
}

/** Index of the first part that differs between two prompts (or the shorter length when one extends the other). */
export function firstChangedPart(before: PromptRecord, after: PromptRecord): number {
  const length = Math.min(before.parts.length, after.parts.length);
  for (let index = 0; index < length; index++) {
    if (before.parts[index]!.hash !== after.parts[index]!.hash) return index;
  }
  return length;
}

/** Where `after` stops repeating `before`, by the label of its first new part; undefined when it repeats it all. */
export function prefixChange(before: PromptRecord, after: PromptRecord): string | undefined {
  return after.parts[firstChangedPart(before, after)]?.label;
}

/** The share of all prompt tokens that were read from the cache, over a session's requests. */
export function cachedShare(records: readonly PromptRecord[]): number {
  const input = records.reduce((sum, record) => sum + record.inputTokens, 0);
  return input === 0 ? 0 : records.reduce((sum, record) => sum + record.cachedTokens, 0) / input;
}

/** Hash of each prefix: entry i covers parts 0..i, so equal hashes mean equal prefixes. */
export function prefixHashes(parts: readonly PromptPart[]): string[] {
  const hashes: string[] = [];
  let previous = '';
  for (const { kind, text } of parts) {
    previous = createHash('sha256').update(previous).update('\0').update(kind).update('\0').update(text).digest('hex');
    hashes.push(previous);
  }
  return hashes;
}

export function partHash(part: PromptPart): string {
  return createHash('sha256').update(part.kind).update('\0').update(part.text).digest('hex').slice(0, 16);
}

/** Tokens through each part: cumulative[i] counts parts 0..i. */
export function cumulativeTokens(parts: readonly PromptPart[]): number[] {
  let total = 0;
  return parts.map((p) => (total += p.tokens));
}

interface CachedPrefix {
  scope: string;
  hash: string;
  parts: readonly PromptPart[];
  hashes: readonly string[];
  tokens: number;
  ttlMs: number;
  expiresAt: number;
}

/** The one option that turns a fake's prompt cache on. */
export interface PromptCacheOption {
  /**
   * Caches prompts as the provider does and reports it in usage: true for a store of the fake's
   * own on the real clock, or a store to share between fakes (and whose clock a test drives).
   * Off by default: usage is then the plain estimate, with nothing cached.
   */
  promptCache?: boolean | PromptCache;
}

export function promptCacheOf(option: PromptCacheOption['promptCache']): PromptCache | undefined {
  if (option === true) return new PromptCache();
  return option instanceof PromptCache ? option : undefined;
}

/** The bearer or x-api-key credential, for scoping; '' when there is none. */
export function credentialOf(headers: Record<string, string | string[] | undefined>): string {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? '';
  return first(headers['x-api-key']) || first(headers['x-goog-api-key']) || first(headers.authorization).replace(/^Bearer\s+/i, '');
}

export interface PromptCacheOptions {
  clock?: Clock;
  /** Entries kept at most; the least recently used go first. */
  maxEntries?: number;
}

/**
 * Cached prompt prefixes, each in a scope (the provider, a hash of the API key standing for the
 * organisation, the model and, for OpenAI, the prompt_cache_key), each alive until its own
 * expiry. One store may serve several fakes; lookups never see another scope's entries.
 */
export class PromptCache {
  readonly clock: Clock;
  private readonly maxEntries: number;
  private readonly entries = new Map<string, CachedPrefix>();

  constructor(options: PromptCacheOptions = {}) {
    this.clock = options.clock ?? { now: () => Date.now() };
    this.maxEntries = options.maxEntries ?? 4096;
  }

  /** The scope a request's entries live in; the key itself is never kept. */
  static scope(provider: string, apiKey: string, model: string, cacheKey?: string): string {
    const organisation = createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
    return JSON.stringify([provider, organisation, model, cacheKey ?? null]);
  }

  get size(): number {
    this.sweep();
    return this.entries.size;
  }

  /** Whether the prefix ending at `hash` is cached and alive. */
  has(scope: string, hash: string): boolean {
    this.sweep();
    return this.entries.has(key(scope, hash));
  }

  /** Stores parts[0..through] (or keeps it longer), alive for ttlMs from now. */
  write(scope: string, parts: readonly PromptPart[], through: number, ttlMs: number): void {
    this.sweep();
    const prefix = parts.slice(0, through + 1);
    const hashes = prefixHashes(prefix);
    const hash = hashes.at(-1)!;
    const id = key(scope, hash);
    const existing = this.entries.get(id);
    const lifetime = Math.max(existing?.ttlMs ?? 0, ttlMs);
    const expiresAt = Math.max(existing?.expiresAt ?? 0, this.clock.now() + lifetime);
    this.entries.delete(id);
    this.entries.set(id, { scope, hash, parts: prefix, hashes, tokens: prefix.reduce((sum, p) => sum + p.tokens, 0), ttlMs: lifetime, expiresAt });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /** A use keeps an entry alive for its lifetime again (or ttlMs, when longer) from now. */
  refresh(scope: string, hash: string, ttlMs = 0): void {
    const id = key(scope, hash);
    const entry = this.entries.get(id);
    if (!entry || entry.expiresAt <= this.clock.now()) return;
    entry.ttlMs = Math.max(entry.ttlMs, ttlMs);
    entry.expiresAt = Math.max(entry.expiresAt, this.clock.now() + entry.ttlMs);
    this.entries.delete(id);
    this.entries.set(id, entry);
  }

  /**
   * The longest prefix the prompt shares with any live entry of the scope, in tokens, at token
   * granularity: whole parts, then the characters the first differing part shares. Also says which
   * entry it came from, so the caller can count it as used.
   */
  longestSharedPrefix(scope: string, parts: readonly PromptPart[]): { tokens: number; wholeParts: number; entryHash?: string } {
    this.sweep();
    const hashes = prefixHashes(parts);
    let best: { tokens: number; wholeParts: number; entryHash?: string } = { tokens: 0, wholeParts: 0 };
    for (const entry of this.entries.values()) {
      if (entry.scope !== scope) continue;
      const length = Math.min(entry.hashes.length, hashes.length);
      let whole = 0;
      while (whole < length && entry.hashes[whole] === hashes[whole]) whole++;
      let tokens = parts.slice(0, whole).reduce((sum, p) => sum + p.tokens, 0);
      const mine = parts[whole];
      const theirs = entry.parts[whole];
      if (mine && theirs && mine.kind === theirs.kind) tokens += Math.floor(sharedLength(mine.text, theirs.text) / CHARS_PER_TOKEN);
      if (tokens > best.tokens) best = { tokens, wholeParts: whole, entryHash: entry.hash };
    }
    return best;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [id, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(id);
  }
}

function key(scope: string, hash: string): string {
  return `${scope}\n${hash}`;
}

function sharedLength(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

/** A record of a prompt and the cache's verdict on it. */
export function promptRecord(
  model: string,
  parts: readonly PromptPart[],
  verdict: { cachedTokens: number; cachedParts: number; cacheWriteTokens: number; cacheWriteByTtl?: { '5m': number; '1h': number } },
  cacheKey?: string,
): PromptRecord {
  return {
    model,
    ...(cacheKey !== undefined ? { cacheKey } : {}),
    parts: parts.map((p) => ({ kind: p.kind, label: p.label, tokens: p.tokens, hash: partHash(p) })),
    inputTokens: parts.reduce((sum, p) => sum + p.tokens, 0),
    cachedTokens: verdict.cachedTokens,
    cacheWriteTokens: verdict.cacheWriteTokens,
    cacheWriteByTtl: verdict.cacheWriteByTtl ?? { '5m': 0, '1h': 0 },
    cachedParts: verdict.cachedParts,
  };
}
