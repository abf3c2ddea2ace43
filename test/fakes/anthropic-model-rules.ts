import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { capabilitiesOf, readsReasoningOf } from '../../src/catalog/index.js';

/**
 * What Anthropic's API refuses or drops by model, read from the router's own catalog rows (the
 * same rows the translators obey, each citing its vendor page), in the words of the pages:
 * - a forced tool choice where the row says none is taken, on messages and count_tokens alike:
 *   `tool_choice: type "tool" and "any" are not supported for this model.` (whats-new-opus-5-5);
 * - `thinking.type.disabled` where thinking cannot be off, and `thinking.type.enabled` (a budget)
 *   where only adaptive thinking is taken: `"thinking.type.disabled" is not supported for this
 *   model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`;
 * - temperature, top_p or top_k under an anthropic-version from which the row says sampling is
 *   refused, or where the row refuses them outright: `temperature: Extra inputs are not permitted`;
 * - a conversation ending with the assistant's words where the row refuses a prefill;
 * - a thinking block the model cannot read (another model's, by the rows' reasoning lines) is
 *   dropped before the model sees it, unbilled, and reported in `input_transformations` only under
 *   the `thinking-binding-controls-2026-08-01` beta (whats-new-fable-5-1);
 * - a thinking block of a model whose blocks are bound to the conversation, replayed after the
 *   conversation before it changed: `The block is bound to a different conversation`.
 * A signature this fake issued names the model and conversation it was made for; one it did not
 * issue (a test's own) passes unchecked.
 */

import { BINDING_BETA } from '../../src/backends/anthropic/input-transformations.js';

export { BINDING_BETA };

export interface IssuedBlock {
  model: string;
  /** The conversation before the block, as the request that produced it sent it. */
  prefix: string;
}

/** A block the fake dropped because its model does not read the writer's reasoning. */
export interface DroppedBlock {
  path: string;
  model: string;
  writer: string;
  /** The request's index among the fake's requests. */
  request: number;
}

export interface RulesVerdict {
  /** A 400's message, when the request is refused. */
  refusal?: string;
  /** The body as the model sees it: unreadable thinking blocks dropped. */
  dropped: DroppedBlock[];
  /** `input_transformations` for the reply, under the binding beta. */
  transformations?: Array<{ type: 'thinking_dropped'; path: string; reason: 'model_binding_mismatch' }>;
}

const FORCED_TOOLS = 'tool_choice: type "tool" and "any" are not supported for this model.';
const thinkingRefused = (type: string): string => `"thinking.type.${type}" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`;
const PREFILL = 'This model does not support assistant message prefill. The conversation must end with a user message.';
const BOUND_ELSEWHERE = 'The block is bound to a different conversation.';

/** The conversation before message `index`, as the binding sees it: cache_control markers move freely. */
export function conversationPrefix(body: Record<string, any>, index: number): string {
  const strip = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(strip) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'cache_control').map(([key, inner]) => [key, strip(inner)])) : value;
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  // A string is the text block it stands for, in a message and in a tool result alike.
  const blocks = (content: unknown): unknown => (typeof content === 'string' ? [{ type: 'text', text: content }] : content);
  const messages = (body.messages ?? [])
    .slice(0, index)
    .map((message: any) => ({ role: message.role, content: (blocks(message.content) as any[]).map((block) => (block?.type === 'tool_result' ? { ...block, content: blocks(block.content ?? []) } : block)) }));
  return createHash('sha256').update(JSON.stringify(strip({ system, tools: body.tools ?? [], messages }))).digest('base64url');
}

/** What the API does with a request for its model, given the thinking blocks this fake issued. */
export function applyModelRules(body: Record<string, any>, headers: IncomingHttpHeaders, issued: ReadonlyMap<string, IssuedBlock>, requestIndex: number, counting = false): RulesVerdict {
  const model = String(body.model);
  const capabilities = capabilitiesOf('anthropic', model);
  const verdict: RulesVerdict = { dropped: [] };
  const choice = body.tool_choice?.type;
  if (capabilities?.forcedToolChoice === false && (choice === 'any' || choice === 'tool')) return { ...verdict, refusal: FORCED_TOOLS };
  const reasoning = capabilities?.reasoning;
  const thinking = body.thinking?.type;
  if (reasoning && thinking === 'disabled' && !reasoning.canTurnOff) return { ...verdict, refusal: thinkingRefused('disabled') };
  if (reasoning && thinking === 'enabled' && reasoning.adaptive && !reasoning.budget) return { ...verdict, refusal: thinkingRefused('enabled') };
  const version = String(headers['anthropic-version'] ?? '');
  // Anthropic's API serves Claude models, each a catalog row saying from which version it refuses
  // sampling; a model no row knows is a server that only speaks the format (llama.cpp's), which takes it.
  const refusedFrom = capabilities?.samplingRefusedFrom;
  for (const [setting, field] of [['temperature', 'temperature'], ['topP', 'top_p'], ['topK', 'top_k']] as const) {
    if (body[field] === undefined) continue;
    if ((refusedFrom !== undefined && version >= refusedFrom) || capabilities?.refusesSampling.includes(setting)) return { ...verdict, refusal: `${field}: Extra inputs are not permitted` };
  }
  const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
  if (!counting && capabilities?.prefill === false && messages.at(-1)?.role === 'assistant') return { ...verdict, refusal: PREFILL };

  messages.forEach((message, index) => {
    if (message?.role !== 'assistant' || !Array.isArray(message.content)) return;
    message.content.forEach((block: any, at: number) => {
      if (block?.type !== 'thinking' || typeof block.signature !== 'string') return;
      const made = issued.get(block.signature);
      if (!made) return;
      const path = `messages.${index}.content.${at}`;
      if (readsReasoningOf('anthropic', model, made.model) === false) {
        verdict.dropped.push({ path, model, writer: made.model, request: requestIndex });
        return;
      }
      if (capabilitiesOf('anthropic', made.model)?.thinkingBoundToConversation && conversationPrefix(body, index) !== made.prefix) verdict.refusal ??= `${path}: ${BOUND_ELSEWHERE}`;
    });
  });
  if (verdict.refusal) return verdict;
  const betas = String(headers['anthropic-beta'] ?? '').split(',').map((beta) => beta.trim());
  if (betas.includes(BINDING_BETA)) verdict.transformations = verdict.dropped.map((drop) => ({ type: 'thinking_dropped', path: drop.path, reason: 'model_binding_mismatch' }));
  return verdict;
}

/** A signature for a block this fake makes: it names nothing, and the fake remembers what it was made for. */
export function issueSignature(issued: Map<string, IssuedBlock>, body: Record<string, any>, given?: string): string {
  const signature = given ?? `sig-${createHash('sha256').update(`${issued.size}\u0000${body.model}\u0000${Math.random()}`).digest('base64url').slice(0, 24)}`;
  issued.set(signature, { model: String(body.model), prefix: conversationPrefix(body, Array.isArray(body.messages) ? body.messages.length : 0) });
  return signature;
}
