import type { Message } from './request.js';

/**
 * System text that arrives mid-conversation (Claude Code's environment after the first user
 * message, a hook's output after a tool result) for upstreams whose prompt has one system place.
 *
 * What comes before the first assistant turn belongs with the system prompt: it joins it at the
 * top. What comes later stays where it was, as a user-side note in Claude Code's own wrapper: the
 * prompt's earlier part is then the same on every later turn, so the provider's prefix cache keeps
 * serving it, and chat templates that refuse a system message anywhere but first (Qwen, Llama,
 * Mistral) never see one. Both are decided by what precedes the note, never by what follows it.
 */

/** Index of the first assistant message; system messages before it join the system prompt. */
export function systemPromptEnd(messages: readonly Message[]): number {
  const index = messages.findIndex((message) => message.role === 'assistant');
  return index === -1 ? messages.length : index;
}

/** A system note carried in the conversation, in Claude Code's wrapper. */
export const asSystemReminder = (text: string): string => `<system-reminder>\n${text}\n</system-reminder>`;
