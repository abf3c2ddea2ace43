import type { Finish, FinishReason, Usage } from '../../core/reply.js';
import type { EncodeContext, SvcMeta } from '../client-format.js';
import type { ResponsesOptions } from './decode-request.js';
import { echoResponsesTools } from './map-tools.js';

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

function responsesUsage(usage: Usage) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/**
 * Settings the response object echoes beyond the core ones: from the canonical request where it
 * models them, else from the client's own body (which the decoder keeps for a same-format
 * upstream), each only when it has the type the specification gives it; else the value it means
 * when left out.
 * https://www.openresponses.org/reference (ResponseResource)
 */
function echoedSettings(context: EncodeContext<ResponsesOptions>) {
  const { request, options } = context;
  const body: Record<string, unknown> = request.forwardBody?.format === 'responses' ? request.forwardBody.body : {};
  const number = (key: string, fallback: number) => (typeof body[key] === 'number' ? (body[key] as number) : fallback);
  const integer = (key: string) => (Number.isInteger(body[key]) ? (body[key] as number) : null);
  const string = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : null);
  return {
    presence_penalty: request.presencePenalty ?? number('presence_penalty', 0),
    frequency_penalty: request.frequencyPenalty ?? number('frequency_penalty', 0),
    top_logprobs: integer('top_logprobs') ?? 0,
    max_tool_calls: integer('max_tool_calls'),
    // Every request here is answered in the foreground, whatever `background` asked.
    background: false,
    // The tier an upstream used is not reported back through the router; `default` is what an
    // unspecified (or `auto`) tier means.
    service_tier: options.serviceTier && options.serviceTier !== 'auto' ? options.serviceTier : 'default',
    safety_identifier: string('safety_identifier'),
    prompt_cache_key: options.promptCacheKey ?? null,
  };
}

/**
 * The `response` object, as the JSON body and as the payload of the lifecycle events: every field
 * the Open Responses ResponseResource requires (schema 2026-04-24), so strict clients accept it.
 */
export function responseObject(
  id: string,
  context: EncodeContext<ResponsesOptions>,
  status: ResponseStatus,
  output: unknown[],
  finalUsage?: Usage,
  meta?: SvcMeta,
  error?: { code: string; message: string },
  incompleteReason = 'max_output_tokens',
  finish?: Finish,
) {
  const { options, request } = context;
  return {
    id,
    object: 'response',
    created_at: context.created,
    // A finished response is finished now; one in progress, incomplete or failed has no completion time.
    completed_at: status === 'completed' ? Math.max(context.created, Math.floor(Date.now() / 1000)) : null,
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
    tools: echoResponsesTools(options.tools),
    top_p: request.topP ?? 1,
    truncation: options.truncation,
    usage: finalUsage ? responsesUsage(finalUsage) : null,
    metadata: options.metadata,
    ...echoedSettings(context),
    // The prompt-cache comparison the client asked for, where the upstream made one (GPT-5.6 and later).
    ...(finish?.promptCacheDiagnostics ? { prompt_cache_diagnostics: finish.promptCacheDiagnostics } : {}),
    ...(meta ? { svc_meta: meta } : {}),
  };
}
