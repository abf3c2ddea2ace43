import { newId } from '../../formats/shared/ids.js';

/**
 * `response.steer` (the SDK's ResponseSteerEvent: `type`, `previous_response_id`, `input`) and the
 * events answering it: `response.steer.accepted`, `.pending` and `.failed`, each tagged with the
 * stream of the response it targets. The router honours a steer by the means every backend has
 * (docs/http-api.md, "Steering"): before any output the response is restarted with the input
 * appended; once output flows, the response finishes and a successor carries the input.
 */
export interface AcceptedSteer {
  id: string;
  /** The input as the client sent it, returned whole in a `response.steer.failed`. */
  input: unknown;
  /** The input as items, appended to the successor's input. */
  items: unknown[];
}

/** Steers one response may hold before another is refused (`too_many_pending_steers`). */
export const MAX_STEERS_PER_RESPONSE = 16;

/** The content parts a steered message may carry (ResponseSteerInputContent). */
const STEER_PARTS = new Set(['input_text', 'input_image', 'input_file']);

/**
 * A steer's input as items, or why it cannot be one. The SDK's rule: a non-empty string, or a
 * non-empty list of `user` messages of only `type` ("message"), `role`, `content` (a string or
 * input_text / input_image / input_file parts); other roles, tool outputs and item types are refused.
 */
export function steerItems(input: unknown): { items: unknown[] } | { error: string } {
  if (typeof input === 'string') return input === '' ? { error: 'input: expected a non-empty string or list of user messages.' } : { items: [{ type: 'message', role: 'user', content: input }] };
  if (!Array.isArray(input) || input.length === 0) return { error: 'input: expected a non-empty string or list of user messages.' };
  for (const [index, item] of input.entries()) {
    const at = `input[${index}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return { error: `${at}: expected a user message.` };
    const { type, role, content, ...rest } = item as Record<string, unknown>;
    const extra = Object.keys(rest).filter((key) => key !== 'id' && key !== 'status');
    if ((type !== undefined && type !== 'message') || role !== 'user') return { error: `${at}: steering takes only user messages (no other roles, tool outputs or item types).` };
    if (extra.length) return { error: `${at}: ${extra[0]!.slice(0, 40)} is not taken on a steered message.` };
    const partsOk = typeof content === 'string' || (Array.isArray(content) && content.every((part) => typeof part === 'object' && part !== null && STEER_PARTS.has((part as { type?: string }).type ?? '')));
    if (!partsOk) return { error: `${at}.content: expected a string or input_text, input_image and input_file parts.` };
  }
  return { items: input.map((item) => ({ type: 'message', role: 'user', content: (item as { content: unknown }).content })) };
}

export const newSteerId = (): string => newId('steer_');

export const steerAccepted = (sequence: number, steer: AcceptedSteer, target: string) => ({
  type: 'response.steer.accepted',
  sequence_number: sequence,
  steer: { id: steer.id, previous_response_id: target },
});

/** Why a steer was not committed; `code` is one the SDK names (ResponseSteerErrorCode). */
export const steerFailed = (sequence: number, code: string, message: string, steer: { id?: string; input: unknown }, target: string) => ({
  type: 'response.steer.failed',
  sequence_number: sequence,
  error: { type: 'invalid_request_error', code, message },
  steer: { ...(steer.id ? { id: steer.id } : {}), input: steer.input, previous_response_id: target },
});

export const steerPending = (sequence: number, steer: AcceptedSteer, target: string, requiredInput: unknown[]) => ({
  type: 'response.steer.pending',
  sequence_number: sequence,
  reason: 'waiting_for_required_input',
  required_input: requiredInput,
  steer: { id: steer.id, previous_response_id: target },
});

/** Output items that wait on the client (ResponseSteerRequiredInput), as the stubs it fills in. */
const OUTPUT_OF: Record<string, string> = {
  function_call: 'function_call_output',
  custom_tool_call: 'custom_tool_call_output',
  computer_call: 'computer_call_output',
  shell_call: 'shell_call_output',
  apply_patch_call: 'apply_patch_call_output',
};

/** The stubs for the client-owned calls a response ended with; empty when it waits on nothing. */
export function requiredInput(output: unknown[] | undefined): unknown[] {
  const stubs: unknown[] = [];
  for (const item of output ?? []) {
    const { type, call_id: callId, name } = (item ?? {}) as { type?: string; call_id?: string; name?: string };
    const stub = type ? OUTPUT_OF[type] : undefined;
    if (!stub || typeof callId !== 'string') continue;
    stubs.push(stub === 'function_call_output' ? { type: stub, call_id: callId, name: name ?? '' } : { type: stub, call_id: callId });
  }
  return stubs;
}

/**
 * The `response.incomplete` that ends a response restarted by a steer before any output: the
 * SDK's "finish at a safe output boundary with response.incomplete and incomplete_details.reason
 * set to steered, followed automatically by a successor response.created".
 */
export function steeredIncomplete(created: Record<string, unknown> | undefined, id: string, sequence: number): string {
  const response = { ...(created ?? { id, object: 'response' }), status: 'incomplete', incomplete_details: { reason: 'steered' }, output: [] };
  return JSON.stringify({ type: 'response.incomplete', sequence_number: sequence, response });
}
