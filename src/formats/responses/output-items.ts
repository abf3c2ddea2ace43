import type { ReasoningPart, TextPart, ToolCallPart } from '../../core/request.js';
import type { WebSearchPart } from '../../core/web-search.js';
import { responsesUrlCitation } from '../shared/citations.js';
import { newId } from '../shared/ids.js';
import type { ResponsesOptions } from './decode-request.js';
import { customToolInput } from '../../core/tool-conventions.js';
import { sealReasoning } from './seal-reasoning.js';

/** Output items; each carries the id and status a client replays in its next request. */
export const messageItem = (text: string, id = newId('msg_'), status = 'completed', annotations: unknown[] = []) => ({
  id,
  type: 'message' as const,
  status,
  role: 'assistant' as const,
  content: [{ type: 'output_text' as const, text, annotations, logprobs: [] as unknown[] }],
});

/** A message whose content is the model's refusal: a `refusal` content part. */
export const refusalItem = (refusal: string, id = newId('msg_'), status = 'completed') => ({
  id,
  type: 'message' as const,
  status,
  role: 'assistant' as const,
  content: [{ type: 'refusal' as const, refusal }],
});

/** The output_text's url_citation annotations for a text part's citations. */
export const textAnnotations = (part: Pick<TextPart, 'text' | 'citations'>) => (part.citations ?? []).map((citation) => responsesUrlCitation(citation, 0, part.text.length));

/**
 * A search as a `web_search_call` item: its query, and the pages found as `action.sources` when the
 * client asked for them (`include: ["web_search_call.action.sources"]`), as OpenAI gives them.
 * https://platform.openai.com/docs/guides/tools-web-search
 */
export function webSearchCallItem(part: WebSearchPart, options: ResponsesOptions, status = 'completed') {
  return {
    id: part.id.startsWith('ws_') ? part.id : `ws_${part.id}`,
    type: 'web_search_call' as const,
    status: part.errorCode && status === 'completed' ? 'failed' : status,
    action: {
      type: 'search' as const,
      query: part.query,
      ...(options.includeSearchSources ? { sources: part.results.map((result) => ({ type: 'url' as const, url: result.url })) } : {}),
    },
  };
}

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
