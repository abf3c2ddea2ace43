import type { Finish, FinishReason, Usage } from '../../core/reply.js';

interface ResponsesUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

/** https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage */
export function usageFromResponses(raw: unknown): Usage {
  const usage = (raw ?? {}) as ResponsesUsage;
  const result: Usage = { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 };
  if (usage.input_tokens_details?.cached_tokens) result.cachedInputTokens = usage.input_tokens_details.cached_tokens;
  if (usage.output_tokens_details?.reasoning_tokens) result.reasoningTokens = usage.output_tokens_details.reasoning_tokens;
  if (raw && typeof raw === 'object') result.raw = raw;
  return result;
}

/**
 * A finished response's status (and any function calls in it) as a canonical finish reason: an
 * `incomplete` one says why in `incomplete_details.reason` (`max_output_tokens` or
 * `content_filter`): https://platform.openai.com/docs/api-reference/responses/object
 */
function finishReasonFromResponse(status: unknown, hasToolCalls: boolean, incompleteReason?: unknown): FinishReason {
  if (status === 'incomplete') return incompleteReason === 'content_filter' ? 'content-filter' : 'length';
  return hasToolCalls ? 'tool-calls' : 'stop';
}

/**
 * The unified reason with the raw one: the status, or for an incomplete response the reason it
 * gives. Some servers that speak the API answer `completed` when the output reached
 * `max_output_tokens` (llama.cpp's does; its Chat endpoint says `length` for the same answer): a
 * completed response without function calls whose output tokens reached the cap the router sent
 * ended at the cap, and is read as OpenAI would have said it, incomplete for `max_output_tokens`.
 */
export function responsesFinish(response: unknown, hasToolCalls: boolean, maxOutputTokens?: number): Finish {
  const body = (response ?? {}) as { status?: unknown; incomplete_details?: { reason?: unknown } | null; prompt_cache_diagnostics?: unknown };
  // The prompt-cache comparison the request asked for (prompt_cache_options.comparison_response_id), for every client format to carry or name.
  const diagnostics = body.prompt_cache_diagnostics;
  const diagnosed = typeof diagnostics === 'object' && diagnostics !== null && !Array.isArray(diagnostics) ? { promptCacheDiagnostics: diagnostics as Record<string, unknown> } : {};
  if (completedAtCap(response, hasToolCalls, maxOutputTokens)) return { unified: 'length', raw: 'max_output_tokens', ...diagnosed };
  const reason = body.incomplete_details?.reason;
  const unified = finishReasonFromResponse(body.status, hasToolCalls, reason);
  const raw = body.status === 'incomplete' && typeof reason === 'string' ? reason : typeof body.status === 'string' ? body.status : undefined;
  return raw ? { unified, raw, ...diagnosed } : { unified, ...diagnosed };
}

/** A response said `completed` whose output reached the cap the router sent, and holds no function call (see responsesFinish). */
export function completedAtCap(response: unknown, hasToolCalls: boolean, maxOutputTokens: number | undefined): boolean {
  const body = (response ?? {}) as { status?: unknown; usage?: { output_tokens?: unknown } | null };
  const outputTokens = body.usage?.output_tokens;
  return body.status === 'completed' && !hasToolCalls && maxOutputTokens !== undefined && typeof outputTokens === 'number' && outputTokens >= maxOutputTokens;
}
