import { estimateRequestTokens } from './estimate-tokens.js';
import type { CanonicalRequest, Message, Part, ToolCallPart, ToolResultPart } from './request.js';

/**
 * Context editing on the canonical request: clearing old tool results (and their inputs) and old
 * reasoning before the prompt reaches a model, as Anthropic's context editing does server-side
 * (https://platform.claude.com/docs/en/build-with-claude/context-editing). A client format decodes
 * its own settings into these edits; an upstream that edits context itself (Anthropic, which gets
 * the client's body) is never shown the edited messages. Each edit is a function of the request
 * alone, so a conversation that grows turn by turn is edited the same way each turn, and what one
 * turn cleared stays cleared in the next: the upstream prompt changes only at a newly cleared block.
 * Input tokens are the router's estimate (estimate-tokens.ts), never an upstream's count.
 */

/** Clears the oldest tool results once the prompt is past the trigger (Anthropic's `clear_tool_uses_20250919`). */
export interface ClearToolUsesEdit {
  type: 'clear-tool-uses';
  /** Clears only when the prompt's estimated input tokens, or its number of tool uses, exceed this. */
  trigger: { unit: 'input-tokens' | 'tool-uses'; value: number };
  /** The most recent tool uses (of any tool) that are never cleared. */
  keep: number;
  /** When clearing would free fewer estimated tokens than this, nothing is cleared. */
  clearAtLeast?: number;
  /** Tools whose uses and results are never cleared. */
  excludeTools: readonly string[];
  /** Also clears the call's arguments: for every tool (true) or for these tools. */
  clearInputs: boolean | readonly string[];
}

/** Drops reasoning from all but the last `keep` assistant turns that have any (Anthropic's `clear_thinking_20251015`). */
export interface ClearThinkingEdit {
  type: 'clear-thinking';
  keep: number | 'all';
}

export type ContextEdit = ClearToolUsesEdit | ClearThinkingEdit;

export type AppliedContextEdit =
  | { type: 'clear-tool-uses'; clearedToolUses: number; clearedInputTokens: number }
  | { type: 'clear-thinking'; clearedThinkingTurns: number; clearedInputTokens: number };

/**
 * What a cleared tool result says instead. Anthropic replaces it with text telling the model the
 * result was removed but does not publish its wording; this is the router's own.
 */
export const CLEARED_TOOL_RESULT = '[Tool result cleared to save context.]';
/** A cleared call's arguments: an empty object, which every upstream accepts as arguments. */
export const CLEARED_TOOL_INPUT = '{}';

/**
 * Applies the edits in order, each to the messages the one before left, and returns what each
 * cleared (edits that cleared nothing are left out, as Anthropic's `applied_edits` leaves them).
 * Replaces `request.messages`; the parts themselves are never changed in place.
 */
export function applyContextEdits(request: CanonicalRequest, edits: readonly ContextEdit[]): AppliedContextEdit[] {
  const applied: AppliedContextEdit[] = [];
  for (const edit of edits) {
    const result = edit.type === 'clear-tool-uses' ? clearToolUses(request, edit) : clearThinking(request, edit);
    if (!result) continue;
    const clearedInputTokens = Math.max(0, estimateRequestTokens(request) - estimateRequestTokens({ ...request, messages: result.messages }));
    // `clear_at_least`: a clearing too small to be worth a broken prompt cache is not made.
    if (edit.type === 'clear-tool-uses' && edit.clearAtLeast !== undefined && clearedInputTokens < edit.clearAtLeast) continue;
    request.messages = result.messages;
    applied.push(
      edit.type === 'clear-tool-uses'
        ? { type: 'clear-tool-uses', clearedToolUses: result.cleared, clearedInputTokens }
        : { type: 'clear-thinking', clearedThinkingTurns: result.cleared, clearedInputTokens },
    );
  }
  return applied;
}

interface Where {
  message: number;
  part: number;
}

interface ToolUse {
  call: Where & { value: ToolCallPart };
  result?: Where & { value: ToolResultPart };
}

/** The conversation's tool uses, oldest first: each call with the result that answers it, when there is one. */
function toolUsesOf(messages: readonly Message[]): ToolUse[] {
  const uses: ToolUse[] = [];
  const waiting = new Map<string, ToolUse>();
  messages.forEach((message, messageIndex) => {
    message.content.forEach((part, partIndex) => {
      if (part.type === 'tool-call') {
        const use: ToolUse = { call: { message: messageIndex, part: partIndex, value: part } };
        uses.push(use);
        waiting.set(part.id, use);
      } else if (part.type === 'tool-result') {
        const use = waiting.get(part.callId);
        if (!use) return;
        use.result = { message: messageIndex, part: partIndex, value: part };
        waiting.delete(part.callId);
      }
    });
  });
  return uses;
}

/** The edited messages and how many uses or turns were cleared, or undefined when the edit does not apply. */
type Cleared = { messages: Message[]; cleared: number } | undefined;

function clearToolUses(request: CanonicalRequest, edit: ClearToolUsesEdit): Cleared {
  const uses = toolUsesOf(request.messages);
  const size = edit.trigger.unit === 'tool-uses' ? uses.length : estimateRequestTokens(request);
  if (size <= edit.trigger.value) return undefined;
  const replaced = new Map<string, Part>();
  let cleared = 0;
  for (const use of uses.slice(0, Math.max(0, uses.length - edit.keep))) {
    const call = use.call.value;
    if (edit.excludeTools.includes(call.name)) continue;
    let changed = false;
    const result = use.result;
    if (result && !isClearedResult(result.value)) {
      replaced.set(key(result), { ...result.value, content: [{ type: 'text', text: CLEARED_TOOL_RESULT }] });
      changed = true;
    }
    const inputs = edit.clearInputs === true || (Array.isArray(edit.clearInputs) && edit.clearInputs.includes(call.name));
    if (inputs && call.arguments !== CLEARED_TOOL_INPUT) {
      replaced.set(key(use.call), { ...call, arguments: CLEARED_TOOL_INPUT });
      changed = true;
    }
    if (changed) cleared++;
  }
  if (!cleared) return undefined;
  const messages = request.messages.map((message, messageIndex) => {
    if (!message.content.some((_, partIndex) => replaced.has(key({ message: messageIndex, part: partIndex })))) return message;
    return { ...message, content: message.content.map((part, partIndex) => replaced.get(key({ message: messageIndex, part: partIndex })) ?? part) };
  });
  return { messages, cleared };
}

const key = (where: Where): string => `${where.message}:${where.part}`;

/** A result that already says only that it was cleared (a client may replay one): clearing it again frees nothing. */
function isClearedResult(result: ToolResultPart): boolean {
  const only = result.content.length === 1 ? result.content[0] : undefined;
  return only?.type === 'text' && only.text === CLEARED_TOOL_RESULT;
}

/**
 * Reasoning turns: an assistant turn runs from a user message to the next, tool results and the
 * calls they answer included (the model's reasoning across one tool loop is one turn's), and
 * counts when it holds any reasoning. All but the last `keep` such turns lose their reasoning; an
 * assistant message left empty goes with it.
 */
function clearThinking(request: CanonicalRequest, edit: ClearThinkingEdit): Cleared {
  if (edit.keep === 'all') return undefined;
  const turnOf: number[] = [];
  const thinkingTurns: number[] = [];
  let turn = 0;
  request.messages.forEach((message, index) => {
    // A user message after tool results carries the rest of the same client message (results lead it): same turn.
    if (message.role === 'user' && request.messages[index - 1]?.role !== 'tool') turn++;
    turnOf.push(turn);
    if (message.role === 'assistant' && message.content.some((part) => part.type === 'reasoning') && thinkingTurns.at(-1) !== turn) thinkingTurns.push(turn);
  });
  const clearedTurns = new Set(thinkingTurns.slice(0, Math.max(0, thinkingTurns.length - edit.keep)));
  if (!clearedTurns.size) return undefined;
  const messages: Message[] = [];
  request.messages.forEach((message, index) => {
    if (message.role !== 'assistant' || !clearedTurns.has(turnOf[index]!)) {
      messages.push(message);
      return;
    }
    const content = message.content.filter((part) => part.type !== 'reasoning');
    if (content.length === message.content.length) messages.push(message);
    else if (content.length) messages.push({ ...message, content });
  });
  return { messages, cleared: clearedTurns.size };
}
