import type { Usage } from '../../core/reply.js';
import type { EncodeContext, SvcMeta } from '../client-format.js';
import type { ResponsesOptions } from './decode-request.js';

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

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
) {
  const { options, request } = context;
  return {
    id,
    object: 'response',
    created_at: context.created,
    status,
    error: error ?? null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
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
