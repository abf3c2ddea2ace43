import { RouterError } from '../../core/errors.js';
import { upstreamText } from '../../core/redact.js';
import type { Reply, ReplyPart } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import { canonicalToolName, customToolArguments } from '../../core/tool-conventions.js';
import { readResponsesReply } from './api.js';
import { responsesFinish, usageFromResponses } from './decode-usage.js';
import { openaiReasoningMetadata } from './reasoning-metadata.js';
import { citationsOf, searchPartOfItem } from './web-search.js';

/** A Responses `response` body in canonical form. */
export function decodeResponsesReply(backend: string, raw: unknown, request?: CanonicalRequest): Reply {
  const body = readResponsesReply(backend, raw);
  if (!body || !Array.isArray(body.output)) throw new RouterError(502, 'upstream', `Backend '${backend}' answered without an output list.`);
  if (body.status === 'failed') throw new RouterError(502, 'upstream', `Backend '${backend}' failed: ${upstreamText(body.error?.message ?? 'unknown error')}`);
  const content: ReplyPart[] = [];
  for (const item of body.output) {
    if (item.type === 'message') {
      let text = '';
      const citations = [];
      for (const part of item.content ?? []) {
        citations.push(...citationsOf(part.annotations, text.length));
        text += part.text ?? part.refusal ?? '';
      }
      if (text) content.push({ type: 'text', text, ...(citations.length ? { citations } : {}) });
    } else if (item.type === 'web_search_call') {
      content.push(searchPartOfItem(item));
    } else if (item.type === 'function_call') {
      content.push({ type: 'tool-call', id: item.call_id ?? '', name: canonicalToolName(item.name ?? '', item.namespace), arguments: item.arguments ?? '' });
    } else if (item.type === 'custom_tool_call') {
      content.push({ type: 'tool-call', id: item.call_id ?? '', name: canonicalToolName(item.name ?? '', item.namespace), arguments: customToolArguments(item.input ?? '') });
    } else if (item.type === 'reasoning') {
      const text = (item.summary ?? []).map((part) => part.text ?? '').join('\n');
      const providerMetadata = openaiReasoningMetadata(item);
      content.push({ type: 'reasoning', text, ...(providerMetadata ? { providerMetadata } : {}) });
    }
  }
  const finish = responsesFinish(body, content.some((part) => part.type === 'tool-call'), request?.maxOutputTokens);
  return {
    ...(body.id ? { id: body.id } : {}),
    content,
    finishReason: finish.unified,
    finish,
    usage: usageFromResponses(body.usage),
  };
}
