import type { ChatRequestMessage } from './api.js';
import type { MarkedPart } from './encode-messages.js';

/**
 * Breakpoints for an upstream that caches only where `cache_control` marks (OpenRouter's Anthropic
 * models), when the client set none: a Chat or Responses client, whose own provider caches
 * without them, its body translated or forwarded. Placed as on an Anthropic upstream
 * (../anthropic/cache-breakpoints.ts): the end of the system message, and the end of the last two
 * runs of user-side messages (user and tool messages between two assistant turns), so each turn
 * reads what the one before it wrote. A marker goes on a message's last part; a plain string
 * becomes the one text part it stands for, which such an upstream reads as the same prompt.
 */
const EPHEMERAL = { type: 'ephemeral' } as const;

export function withChatBreakpoints(messages: ChatRequestMessage[]): ChatRequestMessage[] {
  if (messages.some((message) => Array.isArray(message.content) && (message.content as MarkedPart[]).some((part) => part?.cache_control !== undefined && part?.cache_control !== null))) return messages;
  const system = messages[0]?.role === 'system' || messages[0]?.role === 'developer' ? 1 : 0;
  const runEnds = messages.flatMap((message, index) => (index >= system && message.role !== 'assistant' && (messages[index + 1]?.role ?? 'assistant') === 'assistant' ? [index] : []));
  const marked = new Set([...(system ? [0] : []), ...runEnds.slice(-2)]);
  return messages.map((message, index) => (marked.has(index) ? withMarkerAtEnd(message) : message));
}

function withMarkerAtEnd(message: ChatRequestMessage): ChatRequestMessage {
  const parts: MarkedPart[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message.content) ? (message.content as MarkedPart[]) : [];
  const last = parts.at(-1);
  // Anthropic refuses a breakpoint on an empty text block.
  if (!last || (last.type === 'text' && last.text === '')) return message;
  return { ...message, content: [...parts.slice(0, -1), { ...last, cache_control: EPHEMERAL }] } as ChatRequestMessage;
}
