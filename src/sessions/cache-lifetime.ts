import { metadataOf } from '../core/provider-metadata.js';
import type { CanonicalRequest } from '../core/request.js';

/** How long a provider keeps a prompt prefix after its last use, as the provider documents it. */
export interface CacheLifetime {
  ms: number;
  /** The lifetime in words, for a reason shown to people: `Anthropic's 5-minute cache lifetime`. */
  text: string;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Anthropic: an entry lives 5 minutes after its last use by default, an hour with `ttl: "1h"` on
 * its breakpoint; every hit refreshes it
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
 */
const ANTHROPIC_DEFAULT: CacheLifetime = { ms: 5 * MINUTE, text: "Anthropic's 5-minute cache lifetime" };
const ANTHROPIC_HOUR: CacheLifetime = { ms: HOUR, text: "Anthropic's 1-hour cache lifetime (ttl 1h)" };
/**
 * OpenAI: in-memory retention clears a prefix within 5 to 10 minutes of inactivity (always within
 * an hour); `prompt_cache_retention: "24h"` keeps it up to 24 hours
 * (https://platform.openai.com/docs/guides/prompt-caching#prompt-cache-retention). The earliest
 * clearing is the lifetime: past it, the prefix may be gone.
 */
const OPENAI_IN_MEMORY: CacheLifetime = { ms: 5 * MINUTE, text: "OpenAI's in-memory retention (cleared after 5 to 10 idle minutes)" };
const OPENAI_EXTENDED: CacheLifetime = { ms: 24 * HOUR, text: "OpenAI's extended 24-hour retention" };

/**
 * The lifetime of the prefix a request leaves in its upstream's cache, by the provider its backend
 * type is named for; undefined where none is documented (Gemini's implicit cache names none) or
 * nothing is cached (the offline backend).
 */
export function cacheLifetime(backendType: string | undefined, request: CanonicalRequest): CacheLifetime | undefined {
  switch (backendType) {
    case 'anthropic':
      return asksForHour(request) ? ANTHROPIC_HOUR : ANTHROPIC_DEFAULT;
    case 'openai-chat':
    case 'openai-responses':
      return request.forwardBody?.body.prompt_cache_retention === '24h' ? OPENAI_EXTENDED : OPENAI_IN_MEMORY;
    default:
      return undefined;
  }
}

/** Whether any breakpoint asks for an hour: in a Messages body (top level, tools, system, content blocks), or kept on a canonical part. */
function asksForHour(request: CanonicalRequest): boolean {
  const body = request.forwardBody?.format === 'messages' ? request.forwardBody.body : undefined;
  if (body) {
    if (hourTtl(body.cache_control)) return true;
    if (Array.isArray(body.tools) && body.tools.some((tool) => hourTtl(member(tool, 'cache_control')))) return true;
    if (Array.isArray(body.system) && body.system.some((block) => hourTtl(member(block, 'cache_control')))) return true;
    if (!Array.isArray(body.messages)) return false;
    for (const message of body.messages) {
      const content = member(message, 'content');
      if (Array.isArray(content) && content.some((block) => hourTtl(member(block, 'cache_control')))) return true;
    }
    return false;
  }
  const kept = (part: { providerMetadata?: Record<string, Record<string, unknown>> }) => hourTtl(metadataOf(part.providerMetadata, 'anthropic')?.cacheControl);
  return request.system.some(kept) || request.messages.some((message) => message.content.some(kept));
}

const member = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;

const hourTtl = (control: unknown): boolean => member(control, 'ttl') === '1h';
