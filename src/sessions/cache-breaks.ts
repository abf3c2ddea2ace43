import type { CacheLifetime } from './cache-lifetime.js';
import { firstChange, type PromptFingerprint } from './prompt-fingerprint.js';

/** A pooled key as the sessions view names it: its place in the pool, never the key. */
export interface PoolKey {
  /** Its index in the backend's `keyPool.keys`. */
  index: number;
  /** `key 2`, or `key 2 ($OPENAI_KEY_B)` for a key read from the environment. */
  label: string;
}

/** One turn of a conversation, as the next turn is compared with it. */
export interface TurnMark {
  fingerprint: PromptFingerprint;
  /** When the turn arrived (ms since the epoch): its prompt was read, and the cache entry used, then. */
  startedAt: number;
  /** `BACKEND:MODEL` that answered. */
  target: string;
  key?: PoolKey;
  /** How long the upstream keeps what this turn left in its cache; undefined where none is documented. */
  lifetime?: CacheLifetime;
  /** Reasoning blocks in the turn's prompt its model does not read (another model wrote them), and who wrote them where known. */
  unreadReasoning?: { blocks: number; writers: string[] };
}

/**
 * Why a turn's cache may have been lost, as far as the router can see: the session moved to
 * another target or key (each has a cache of its own), the provider's cache lifetime passed
 * between the turns, the tools changed, the prompt stopped repeating the previous one at a part, or
 * its model did not read reasoning another model wrote (the upstream leaves that out of the prompt).
 */
export interface CacheBreak {
  kind: 'moved' | 'lifetime' | 'tools' | 'prefix' | 'reasoning';
  /** The reason in words. */
  text: string;
  /** prefix: where the prompt first changed (`system`, `messages[3]`). */
  part?: string;
  /** moved: the target or key the previous turn used, and this turn's. */
  from?: string;
  to?: string;
  /** lifetime: the time between the turns, and the provider's lifetime. */
  idle_ms?: number;
  lifetime_ms?: number;
}

/** Every reason the router sees for `next` not to find `previous`'s prefix in the cache; none when it should. */
export function cacheBreaks(previous: TurnMark, next: TurnMark): CacheBreak[] {
  const breaks: CacheBreak[] = [];
  if (previous.target !== next.target) {
    breaks.push({ kind: 'moved', from: previous.target, to: next.target, text: `moved from ${previous.target} to ${next.target} (each upstream caches on its own)` });
  } else if (previous.key?.index !== next.key?.index) {
    const from = previous.key?.label ?? "the backend's own key";
    const to = next.key?.label ?? "the backend's own key";
    breaks.push({ kind: 'moved', from, to, text: `moved from ${from} to ${to} of the pool (each key caches on its own)` });
  }
  const idle = next.startedAt - previous.startedAt;
  if (previous.lifetime && idle > previous.lifetime.ms) {
    breaks.push({ kind: 'lifetime', idle_ms: idle, lifetime_ms: previous.lifetime.ms, text: `${formatIdle(idle)} since the previous turn, past ${previous.lifetime.text}` });
  }
  const change = firstChange(previous.fingerprint, next.fingerprint);
  if (change?.kind === 'tools') breaks.push({ kind: 'tools', text: 'the tools changed' });
  else if (change) breaks.push({ kind: 'prefix', part: change.part, text: `the prefix changed at ${change.part}` });
  const unread = next.unreadReasoning;
  if (unread?.blocks) {
    const who = unread.writers.length ? ` (${unread.writers.join(', ')})` : '';
    breaks.push({ kind: 'reasoning', text: `reasoning from another model: ${unread.blocks} reasoning block${unread.blocks === 1 ? '' : 's'}${who} not read by ${next.target}` });
  }
  return breaks;
}

/** 45 s, 7 min, 2 h 5 min. */
export function formatIdle(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const rest = minutes % 60;
  return `${Math.floor(minutes / 60)} h${rest ? ` ${rest} min` : ''}`;
}
