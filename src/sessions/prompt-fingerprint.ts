import { createHash, type Hash } from 'node:crypto';
import type { CanonicalRequest } from '../core/request.js';

/**
 * What one turn's upstream prompt looked like, without a word of it: a hash of each part, in the
 * order providers cache a prefix (tools, then the system prompt, then each item of the
 * conversation). Comparing two turns' fingerprints says where the second stopped repeating the
 * first, which is where the provider's prefix cache stopped serving it. Parts are named as in the
 * client's own request (`system`, `instructions`, `messages[3]`, `input[3]`).
 */
export interface PromptFingerprint {
  /** The tool definitions, as one part (0 when there are none). */
  tools: number;
  /** Where the system prompt sits in the client's request; Chat's is its first message. */
  systemName: string;
  system: number;
  /** The conversation's key in the client's request (`messages`, `input`). */
  conversationName: string;
  /** One hash per item of the conversation, for the first MAX_HASHED_ITEMS of them. */
  items: Float64Array;
}

/**
 * Items of a conversation hashed per turn: a change later than this is not located. It bounds
 * both the time a turn's fingerprint takes and the memory one kept fingerprint holds (8 bytes an
 * item).
 */
export const MAX_HASHED_ITEMS = 1_024;

/** A part that is absent hashes to this. */
const ABSENT = 0;

/** Keys of a client's body that hold the system prompt and the conversation: Messages, Chat and Responses name them so. */
const SYSTEM_KEYS = ['system', 'instructions'] as const;
const CONVERSATION_KEYS = ['messages', 'input'] as const;

/**
 * The fingerprint of the prompt a request sends upstream: read from the client's own body when the
 * decoder kept it (it is what a same-format upstream gets, and what a translating encoder renders
 * deterministically), else from the canonical request.
 */
export function fingerprintPrompt(request: CanonicalRequest): PromptFingerprint {
  const body = request.forwardBody?.body;
  if (!body) {
    return {
      tools: request.tools.length ? partHash(request.tools) : ABSENT,
      systemName: 'system',
      system: request.system.length ? partHash(request.system) : ABSENT,
      conversationName: 'messages',
      items: itemHashes(request.messages),
    };
  }
  const systemName = SYSTEM_KEYS.find((key) => Object.hasOwn(body, key)) ?? 'system';
  const conversationName = CONVERSATION_KEYS.find((key) => Object.hasOwn(body, key)) ?? 'messages';
  const conversation = Object.hasOwn(body, conversationName) ? body[conversationName] : undefined;
  const tools = Object.hasOwn(body, 'tools') ? body.tools : undefined;
  return {
    // No tools and an empty list are the same prompt.
    tools: tools === undefined || tools === null || (Array.isArray(tools) && tools.length === 0) ? ABSENT : partHash(tools),
    systemName,
    system: Object.hasOwn(body, systemName) ? partHash(body[systemName]) : ABSENT,
    conversationName,
    // A Responses `input` may be one string: one item.
    items: itemHashes(Array.isArray(conversation) ? conversation : conversation === undefined ? [] : [conversation]),
  };
}

function itemHashes(items: readonly unknown[]): Float64Array {
  const count = Math.min(items.length, MAX_HASHED_ITEMS);
  const hashes = new Float64Array(count);
  for (let i = 0; i < count; i++) hashes[i] = partHash(items[i]);
  return hashes;
}

/**
 * 48 bits of a digest of the part (a number, so a fingerprint is one typed array). The digest only
 * tells parts apart, it secures nothing: SHA-1, the quickest Node has in every build.
 */
function partHash(value: unknown): number {
  const hasher = createHash('sha1');
  feed(hasher, value, 0);
  // Never 0, which stands for an absent part.
  return hasher.digest().readUIntLE(0, 6) || 1;
}

/** Nesting walked member by member; deeper, a subtree is read as its JSON text. */
const MAX_DEPTH = 32;

/**
 * The value into the digest, each piece tagged with its kind and length so that no two values
 * feed the same bytes, members in the client's order (a part re-serialised in another order counts
 * as changed, as it does for the provider's cache). Strings go to the digest as they are: walking
 * the value costs about half what serialising it first does (bench/session-turns.ts).
 */
function feed(hasher: Hash, value: unknown, depth: number): void {
  if (typeof value === 'string') {
    hasher.update(`s${value.length}:`);
    hasher.update(value);
  } else if (value === null || typeof value !== 'object') {
    hasher.update(`${typeof value}:${String(value)};`);
  } else if (depth >= MAX_DEPTH) {
    const text = deepText(value);
    hasher.update(`j${text.length}:`);
    hasher.update(text);
  } else if (Array.isArray(value)) {
    hasher.update(`a${value.length}:`);
    for (const item of value) feed(hasher, item, depth + 1);
  } else {
    const keys = Object.keys(value);
    hasher.update(`o${keys.length}:`);
    for (const key of keys) {
      hasher.update(`${key.length}:${key}`);
      feed(hasher, (value as Record<string, unknown>)[key], depth + 1);
    }
  }
}

/** A deep subtree's JSON; one too deep even for that is told apart by nothing more. */
function deepText(value: object): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return 'too deep';
  }
}

/** A part of the prompt: where the first change is, or `tools` when the tool definitions changed. */
export type PromptPart = { kind: 'tools' } | { kind: 'part'; part: string };

/**
 * Where `after` first differs from `before`, in prefix order: the tools, the system prompt, then
 * the conversation's items both turns have. An `after` that repeats `before` and goes on (the
 * usual next turn) or stops early (a retried turn) has no change: its prefix is cached.
 */
export function firstChange(before: PromptFingerprint, after: PromptFingerprint): PromptPart | undefined {
  if (before.tools !== after.tools) return { kind: 'tools' };
  if (before.system !== after.system || before.systemName !== after.systemName) return { kind: 'part', part: after.systemName };
  const shared = Math.min(before.items.length, after.items.length);
  for (let i = 0; i < shared; i++) if (before.items[i] !== after.items[i]) return { kind: 'part', part: `${after.conversationName}[${i}]` };
  return undefined;
}

/**
 * How many leading parts two fingerprints share, counting the tools and the system prompt as one
 * part each: what tells which of a session's conversations a turn continues.
 */
export function leadingParts(before: PromptFingerprint, after: PromptFingerprint): number {
  if (before.tools !== after.tools) return 0;
  if (before.system !== after.system || before.systemName !== after.systemName) return 1;
  const shared = Math.min(before.items.length, after.items.length);
  let i = 0;
  while (i < shared && before.items[i] === after.items[i]) i++;
  return 2 + i;
}
