import { applyContextEdits, type AppliedContextEdit, type ClearThinkingEdit, type ClearToolUsesEdit, type ContextEdit } from '../../core/context-edits.js';
import { invalidRequest } from '../../core/errors.js';
import { estimateRequestTokens } from '../../core/estimate-tokens.js';
import type { CanonicalRequest, FormatName } from '../../core/request.js';
import { keepForSameFormat } from '../../core/same-format-only.js';
import { asArray, asObject, requiredString, wrongType, type Json } from '../shared/read-fields.js';

/**
 * Anthropic's context editing (`context_management.edits`, the context-management-2025-06-27 beta:
 * https://platform.claude.com/docs/en/build-with-claude/context-editing) on the canonical request.
 * The edits are checked as Anthropic checks them, whatever the route, and applied to the canonical
 * messages, which only a translating upstream reads: an Anthropic upstream gets the client's body
 * and edits it itself. What the router cleared reaches the client as `context_management` in the
 * reply, the field Anthropic answers with.
 */

const CLEAR_TOOL_USES = 'clear_tool_uses_20250919';
const CLEAR_THINKING = 'clear_thinking_20251015';

/** Anthropic's defaults: clear past 100,000 input tokens, keep the last 3 tool uses, keep the last thinking turn. */
const DEFAULT_TRIGGER_TOKENS = 100_000;
const DEFAULT_KEEP_TOOL_USES = 3;
const DEFAULT_KEEP_THINKING_TURNS = 1;

const TOOL_USES_FIELDS = new Set(['type', 'trigger', 'keep', 'clear_at_least', 'exclude_tools', 'clear_tool_inputs']);
const THINKING_FIELDS = new Set(['type', 'keep']);

/**
 * Reads `context_management`, applies the edits it names to the request's messages, and returns
 * what they cleared and the estimate of the prompt before them: undefined when the request asks
 * for no edits. Edits of other types (`compact_20260112`, …) and fields the router does not know
 * reach an Anthropic upstream in the client's body; elsewhere they are named in the warnings.
 */
export function decodeContextManagement(json: Json, request: CanonicalRequest): { applied: AppliedContextEdit[]; originalInputTokens: number } | undefined {
  if (json.context_management === undefined || json.context_management === null) return undefined;
  const config = asObject(json.context_management, 'context_management');
  const unknownKeys = Object.keys(config).filter((name) => name !== 'edits');
  if (unknownKeys.length) keepForSameFormat(request, 'context_management', `${namedTypes(unknownKeys)} not applied: only an Anthropic upstream reads these fields.`, false);
  if (config.edits === undefined || config.edits === null) return undefined;
  const list = asArray(config.edits, 'context_management.edits');
  if (!list.length) return undefined;
  const edits: ContextEdit[] = [];
  const others: string[] = [];
  let toolUsesAt: number | undefined;
  const seen = new Set<string>();
  list.forEach((raw, index) => {
    const path = `context_management.edits.${index}`;
    const edit = asObject(raw, path);
    const type = requiredString(edit, 'type', `${path}.type`);
    // The router's own rule, which also bounds the work: each strategy once (a second would edit what the first left).
    if ((type === CLEAR_TOOL_USES || type === CLEAR_THINKING) && seen.has(type)) throw invalidRequest(`${path}.type: '${type}' is listed twice; give each strategy once.`, `${path}.type`);
    seen.add(type);
    if (type === CLEAR_TOOL_USES) {
      toolUsesAt ??= index;
      edits.push(clearToolUses(edit, path, request));
    } else if (type === CLEAR_THINKING) {
      // "When using multiple strategies, the clear_thinking_20251015 strategy must be listed first."
      if (toolUsesAt !== undefined) throw invalidRequest(`${path}.type: '${CLEAR_THINKING}' must be listed before '${CLEAR_TOOL_USES}' in context_management.edits.`, `${path}.type`);
      if (!thinkingOn(json)) throw invalidRequest(`${path}: the '${CLEAR_THINKING}' strategy requires thinking to be enabled.`, `${path}.type`);
      edits.push(clearThinking(edit, path, request));
    } else {
      others.push(type);
    }
  });
  if (others.length) keepForSameFormat(request, 'context_management.edits', `${namedTypes(others)} not applied: only an Anthropic upstream manages context this way; the conversation is sent as it is.`, false);
  if (!edits.length) return undefined;
  // Before the edits, for count_tokens' `original_input_tokens`.
  const originalInputTokens = estimateRequestTokens(request);
  return { applied: applyContextEdits(request, edits), originalInputTokens };
}

/** The reply's `context_management`, in Anthropic's shape. */
export function contextManagementReply(applied: readonly AppliedContextEdit[]): { applied_edits: Array<Record<string, unknown>> } {
  return {
    applied_edits: applied.map((edit) =>
      edit.type === 'clear-tool-uses'
        ? { type: CLEAR_TOOL_USES, cleared_tool_uses: edit.clearedToolUses, cleared_input_tokens: edit.clearedInputTokens }
        : { type: CLEAR_THINKING, cleared_thinking_turns: edit.clearedThinkingTurns, cleared_input_tokens: edit.clearedInputTokens },
    ),
  };
}

/**
 * The reply's `context_management` when the router edited the context: in the message body, and
 * streamed in the final `message_delta` event, where Anthropic puts it. An upstream that got the
 * client's own body (Anthropic) edited the context itself, and its own field stands instead.
 */
export function routerContextManagement(applied: readonly AppliedContextEdit[] | undefined, upstreamWireFormat: FormatName | undefined): { context_management?: ReturnType<typeof contextManagementReply> } {
  return applied && upstreamWireFormat !== 'messages' ? { context_management: contextManagementReply(applied) } : {};
}

function thinkingOn(json: Json): boolean {
  const thinking = json.thinking;
  if (thinking === null || typeof thinking !== 'object' || Array.isArray(thinking)) return false;
  const type = (thinking as Json).type;
  return type === 'enabled' || type === 'adaptive';
}

function clearToolUses(edit: Json, path: string, request: CanonicalRequest): ClearToolUsesEdit {
  unknownFields(edit, TOOL_USES_FIELDS, path, request);
  const trigger = present(edit.trigger) ? asObject(edit.trigger, `${path}.trigger`) : undefined;
  const triggerType = trigger && oneOf(trigger, `${path}.trigger`, ['input_tokens', 'tool_uses']);
  const keep = present(edit.keep) ? asObject(edit.keep, `${path}.keep`) : undefined;
  if (keep) oneOf(keep, `${path}.keep`, ['tool_uses']);
  const atLeast = present(edit.clear_at_least) ? asObject(edit.clear_at_least, `${path}.clear_at_least`) : undefined;
  if (atLeast) oneOf(atLeast, `${path}.clear_at_least`, ['input_tokens']);
  return {
    type: 'clear-tool-uses',
    trigger: trigger
      ? { unit: triggerType === 'tool_uses' ? 'tool-uses' : 'input-tokens', value: count(trigger, `${path}.trigger.value`, 0) }
      : { unit: 'input-tokens', value: DEFAULT_TRIGGER_TOKENS },
    keep: keep ? count(keep, `${path}.keep.value`, 0) : DEFAULT_KEEP_TOOL_USES,
    ...(atLeast ? { clearAtLeast: count(atLeast, `${path}.clear_at_least.value`, 0) } : {}),
    excludeTools: names(edit.exclude_tools, `${path}.exclude_tools`) ?? [],
    clearInputs: typeof edit.clear_tool_inputs === 'boolean' ? edit.clear_tool_inputs : (names(edit.clear_tool_inputs, `${path}.clear_tool_inputs`, 'a boolean or an array of tool names') ?? false),
  };
}

function clearThinking(edit: Json, path: string, request: CanonicalRequest): ClearThinkingEdit {
  unknownFields(edit, THINKING_FIELDS, path, request);
  if (!present(edit.keep)) return { type: 'clear-thinking', keep: DEFAULT_KEEP_THINKING_TURNS };
  if (edit.keep === 'all') return { type: 'clear-thinking', keep: 'all' };
  const keep = asObject(edit.keep, `${path}.keep`);
  if (oneOf(keep, `${path}.keep`, ['thinking_turns', 'all']) === 'all') return { type: 'clear-thinking', keep: 'all' };
  return { type: 'clear-thinking', keep: count(keep, `${path}.keep.value`, 1) };
}

/** Client-given names (edit types, fields) for a warning: each once, a few at most, each cut short, so a warning stays small whatever the body holds. */
function namedTypes(types: readonly string[]): string {
  const unique = [...new Set(types)].map((type) => (type.length > 64 ? `${type.slice(0, 64)}…` : type));
  return unique.length > 3 ? `${unique.slice(0, 3).join(', ')} and ${unique.length - 3} more` : unique.join(', ');
}

const present = (value: unknown): boolean => value !== undefined && value !== null;

/** The object's `type`, which must be one of `types`. */
function oneOf(object: Json, path: string, types: readonly string[]): string {
  const type = requiredString(object, 'type', `${path}.type`);
  if (!types.includes(type)) throw invalidRequest(`${path}.type: expected ${types.map((name) => `'${name}'`).join(' or ')}.`, `${path}.type`);
  return type;
}

/** A whole number of at least `min` under `value`, required. */
function count(object: Json, path: string, min: number): number {
  const value = object.value;
  if (!present(value)) throw invalidRequest(`${path}: this field is required.`, path, 'missing_required_parameter');
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw wrongType(path, 'an integer');
  if (value < min) throw invalidRequest(`${path}: must be at least ${min}.`, path);
  return value;
}

function names(value: unknown, path: string, expected = 'an array of tool names'): string[] | undefined {
  if (!present(value)) return undefined;
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) throw wrongType(path, expected);
  return value as string[];
}

/** Fields of a known edit the router does not read: an Anthropic upstream gets them; elsewhere the edit would be applied without them, so the request is refused. */
function unknownFields(edit: Json, known: ReadonlySet<string>, path: string, request: CanonicalRequest): void {
  const unknown = Object.keys(edit).filter((name) => !known.has(name));
  if (unknown.length) keepForSameFormat(request, `${path}.${unknown[0]}`, `this field of a context edit is read only by an Anthropic upstream, and this model routes elsewhere; leave it out.`);
}
