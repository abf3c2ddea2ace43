import type { FinishReason, Usage } from '../../core/reply.js';
import type { EncodeContext, SvcMeta } from '../client-format.js';
import type { ResponsesOptions } from './decode-request.js';

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/**
 * A finished response's status for the unified reason: cut short by the output cap or by a content
 * filter is `incomplete` with that reason, anything else `completed`.
 * https://platform.openai.com/docs/api-reference/responses/object#responses/object-incomplete_details
 */
export function responsesStatus(reason: FinishReason): { status: 'completed' | 'incomplete'; incompleteReason?: string } {
  if (reason === 'length') return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
  if (reason === 'content-filter') return { status: 'incomplete', incompleteReason: 'content_filter' };
  return { status: 'completed' };
}

export function responsesUsage(usage: Usage) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** The `response` object, as the JSON body and as the payload of the lifecycle events. */
export function responseObject(
  id: string,
  context: EncodeContext<ResponsesOptions>,
  status: ResponseStatus,
  output: unknown[],
  finalUsage?: Usage,
  meta?: SvcMeta,
  error?: { code: string; message: string },
  incompleteReason = 'max_output_tokens',
) {
  const { options, request } = context;
  return {
    id,
    object: 'response',
    created_at: context.created,
    status,
    error: error ?? null,
    incomplete_details: status === 'incomplete' ? { reason: incompleteReason } : null,
    instructions: options.instructions,
    max_output_tokens: request.maxOutputTokens ?? null,
    model: context.model,
    output,
    parallel_tool_calls: request.parallelToolCalls ?? true,
    previous_response_id: options.previousResponseId,
    reasoning: options.reasoning,
    store: options.store,
    temperature: request.temperature ?? 1,
    text: options.text,
    tool_choice: options.toolChoice,
    tools: options.tools,
    top_p: request.topP ?? 1,
    truncation: options.truncation,
    usage: finalUsage ? responsesUsage(finalUsage) : null,
    metadata: options.metadata,
    ...(meta ? { svc_meta: meta } : {}),
  };
}
