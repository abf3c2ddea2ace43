import type { ReasoningPart, ToolCallPart } from '../../core/request.js';
import { newId } from '../shared/ids.js';
import type { ResponsesOptions } from './decode-request.js';
import { customToolInput } from '../../core/tool-conventions.js';
import { sealReasoning } from './seal-reasoning.js';

/** Output items; each carries the id and status a client replays in its next request. */
export const messageItem = (text: string, id = newId('msg_'), status = 'completed') => ({
  id,
  type: 'message' as const,
  status,
  role: 'assistant' as const,
  content: [{ type: 'output_text' as const, text, annotations: [] as unknown[], logprobs: [] as unknown[] }],
});

export const reasoningItem = (text: string, id = newId('rs_'), status = 'completed', encryptedContent?: string) => ({
  id,
  type: 'reasoning' as const,
  status,
  summary: text ? [{ type: 'summary_text' as const, text }] : [],
  ...(encryptedContent ? { encrypted_content: encryptedContent } : {}),
});

/** A finished reasoning item, sealed for replay when the client asked for encrypted content. */
export function finishedReasoningItem(part: ReasoningPart, options: ResponsesOptions, secret: string, id?: string) {
  const sealed = options.includeEncryptedReasoning ? sealReasoning(part, secret) : undefined;
  return reasoningItem(part.text, id, 'completed', sealed);
}

/** A tool search's arguments as the object the model meant; text that is no JSON object is kept under `query`. */
function parseArguments(args: string): unknown {
  try {
    const value = JSON.parse(args) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value;
  } catch {
    // a model that ignored the schema sent the query itself
  }
  return { query: args };
}

/**
 * A canonical tool call as the client declared the tool: a function call (with its namespace
 * restored), a custom tool call carrying the raw input, or a client-run tool search's call.
 */
export function toolCallItem(part: ToolCallPart, options: ResponsesOptions, id?: string, status = 'completed') {
  const client = options.toolsByName.get(part.name);
  if (client?.kind === 'tool_search') {
    // The client runs its own tool search: the model's call reaches it as OpenAI's item would.
    return {
      id: id ?? newId('tsc_'),
      type: 'tool_search_call' as const,
      status,
      call_id: part.id,
      execution: 'client' as const,
      arguments: status === 'completed' ? parseArguments(part.arguments) : {},
    };
  }
  if (client?.kind === 'custom') {
    return {
      id: id ?? newId('ctc_'),
      type: 'custom_tool_call' as const,
      status,
      call_id: part.id,
      name: client.name,
      ...(client.namespace ? { namespace: client.namespace } : {}),
      input: status === 'completed' ? customToolInput(part.arguments) : '',
    };
  }
  return {
    id: id ?? newId('fc_'),
    type: 'function_call' as const,
    status,
    call_id: part.id,
    name: client?.name ?? part.name,
    ...(client?.namespace ? { namespace: client.namespace } : {}),
    arguments: part.arguments,
  };
}
