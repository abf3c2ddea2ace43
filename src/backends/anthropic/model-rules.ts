import { foreignReasoningWarning, unsentSampling, type Capabilities } from '../../catalog/index.js';
import { invalidRequest } from '../../core/errors.js';
import type { CanonicalRequest, ForeignReasoningBlock, ReasoningEffort, ToolChoice } from '../../core/request.js';

/**
 * What the catalog's row for a Claude model says a Messages body may hold, applied to a body the
 * router wrote and to a client's own forwarded body alike: a setting the model would refuse with a
 * 400 goes in the nearest form it takes, named; a request no form of which it takes is refused in
 * the client's format, naming the rule. The rows cite the vendor pages (src/catalog/model-capabilities.ts).
 */

/** Anthropic's API from this version refuses temperature, top_p and top_k at any value (migration-2026-10-21). */
export const SAMPLING_REFUSED_FROM = '2026-10-21';

/** The beta header server-side fallback takes, with `fallbacks: "default"` (https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback). */
export const SERVER_FALLBACK_BETA = 'server-side-fallback-2026-07-01';

/** The API version from which this model's sampling settings are refused. */
export const samplingRefusedFrom = (capabilities: Capabilities | undefined): string => capabilities?.samplingRefusedFrom ?? SAMPLING_REFUSED_FROM;

/**
 * A forced tool choice on a model that takes only `auto` and `none` (Opus 5.5, Fable 5.1: "tool_choice:
 * type "tool" and "any" are not supported for this model."): `auto`, with the tools still offered.
 */
export function allowedToolChoice(choice: ToolChoice | undefined, capabilities: Capabilities | undefined, model: string): { choice: ToolChoice | undefined; warning?: string } {
  if (capabilities?.forcedToolChoice !== false || (choice !== 'required' && typeof choice !== 'object')) return { choice };
  const asked = choice === 'required' ? "tool_choice 'required'" : `tool_choice naming '${choice.name}'`;
  return { choice: 'auto', warning: `${asked} sent as 'auto', the tools still offered: ${model} refuses a forced tool choice, so it may answer without calling one.` };
}

/**
 * A conversation that ends with the assistant's own words (a prefill) on a model that refuses one:
 * no nearer request keeps its meaning, so it is refused before it costs a call.
 */
export function refusePrefill(request: CanonicalRequest, capabilities: Capabilities | undefined, model: string): void {
  if (capabilities?.prefill !== false) return;
  const last = request.messages.at(-1);
  if (last?.role !== 'assistant' || !last.content.some((part) => part.type === 'text' && part.text !== '')) return;
  const at = `messages[${request.messages.length - 1}]`;
  throw invalidRequest(
    `${at}: ${model} does not continue a reply from an assistant message (a prefill): its API refuses one. End the conversation with a user message; for a reply in a set shape, ask for structured output (a JSON schema) instead.`,
    at,
    'prefill_not_supported',
  );
}

/** A client's own Messages body, as the model takes it, and what was changed. */
export interface AdaptedBody {
  body: Record<string, unknown>;
  warnings: string[];
}

const EFFORTS_LOW_FIRST: readonly ReasoningEffort[] = ['low', 'medium', 'high', 'xhigh', 'max'];

/**
 * The client's forwarded Messages body with what this model refuses put in the form it takes:
 * a forced tool choice becomes `auto`; `thinking.type.disabled` on a model that always thinks
 * becomes adaptive thinking at its lowest effort with the reasoning omitted, and a thinking budget
 * on one that takes adaptive thinking only becomes adaptive; sampling the model refuses (or the
 * API version refuses) is left out. Undefined when the body needs no change: it is then forwarded
 * as the client wrote it, byte for byte.
 */
export function adaptForwardedBody(body: Record<string, unknown>, request: CanonicalRequest, capabilities: Capabilities | undefined, model: string, version: string, counting = false, serverFallbacks = false): AdaptedBody | undefined {
  if (!counting) refusePrefill(request, capabilities, model);
  const warnings: string[] = [];
  let adapted: Record<string, unknown> | undefined;
  const edit = (): Record<string, unknown> => (adapted ??= { ...body });

  // `fallbacks` goes only where the upstream runs it (Anthropic's API, a model that takes it); elsewhere the router runs the client's fallbacks (src/handlers/declined.ts).
  if (body.fallbacks !== undefined && !(serverFallbacks && capabilities?.serverFallbacks)) delete edit().fallbacks;

  // Another provider's reasoning the router sealed: its text as plain text where the client had some, else left out.
  const foreign = request.forwardBody?.foreignReasoning;
  if (foreign?.length) {
    edit().messages = withoutForeignReasoning(body.messages as unknown[], foreign);
    warnings.push(foreignReasoningWarning(foreign, model));
  }

  const choice = allowedToolChoice(request.toolChoice, capabilities, model);
  if (choice.warning) {
    const { type: _type, name: _name, ...rest } = body.tool_choice as Record<string, unknown>;
    edit().tool_choice = { ...rest, type: 'auto' };
    warnings.push(choice.warning);
  }

  const thinking = isRecord(body.thinking) ? body.thinking : undefined;
  const reasoning = capabilities?.reasoning;
  if (thinking && reasoning) {
    if (thinking.type === 'disabled' && !reasoning.canTurnOff) {
      const lowest = EFFORTS_LOW_FIRST.find((effort) => reasoning.efforts.includes(effort));
      edit().thinking = { type: 'adaptive', display: 'omitted' };
      if (lowest) adapted!.output_config = { ...(isRecord(body.output_config) ? body.output_config : {}), effort: lowest };
      warnings.push(`thinking.type 'disabled' sent as adaptive thinking${lowest ? ` at effort '${lowest}'` : ''}, its reasoning not shown: ${model} always thinks (it refuses thinking.type.disabled).`);
    } else if (thinking.type === 'enabled' && reasoning.adaptive && !reasoning.budget) {
      const { budget_tokens: budget, type: _type, ...rest } = thinking;
      edit().thinking = { ...rest, type: 'adaptive' };
      warnings.push(`thinking budget of ${String(budget)} tokens not sent: ${model} takes adaptive thinking only (it refuses thinking.type.enabled).`);
    }
  }

  const sampling = (['temperature', 'topP', 'topK'] as const).filter((key) => request[key] !== undefined);
  if (sampling.length) {
    // The client chose its version and its sampling: they go as sent unless the catalog says the
    // model refuses them under that version (a server that only speaks the format, llama.cpp's, takes both).
    const refusedFrom = capabilities?.samplingRefusedFrom;
    const byVersion = refusedFrom !== undefined && version >= refusedFrom;
    const unsent = byVersion ? { settings: sampling, warning: `${sampling.map(wireName).join(', ')} not sent: anthropic-version ${version} has no sampling settings.` } : unsentSampling(request, capabilities, model, undefined);
    if (unsent.settings.length) {
      const target = edit();
      for (const setting of unsent.settings) delete target[wireName(setting)];
      if (unsent.warning) warnings.push(unsent.warning);
    }
  }
  return adapted ? { body: adapted, warnings } : undefined;
}

/** The messages with each sealed block replaced by its text (a text block) or, with none, left out. */
function withoutForeignReasoning(messages: unknown[], foreign: readonly ForeignReasoningBlock[]): unknown[] {
  const byMessage = new Map<number, ForeignReasoningBlock[]>();
  for (const block of foreign) byMessage.set(block.message, [...(byMessage.get(block.message) ?? []), block]);
  return messages.map((message, index) => {
    const blocks = byMessage.get(index);
    if (!blocks || !isRecord(message) || !Array.isArray(message.content)) return message;
    const content = message.content.flatMap((block: unknown, at: number) => {
      const sealed = blocks.find((candidate) => candidate.block === at);
      if (!sealed) return [block];
      return sealed.text ? [{ type: 'text', text: sealed.text }] : [];
    });
    return { ...message, content };
  });
}

const wireName = (setting: 'temperature' | 'topP' | 'topK'): string => ({ temperature: 'temperature', topP: 'top_p', topK: 'top_k' })[setting];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
