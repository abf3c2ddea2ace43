import { RouterError } from '../../core/errors.js';
import type { Reply, ReplyPart } from '../../core/reply.js';
import { finishReasonFromResponse, usageFromResponses } from './decode-usage.js';

interface OutputItem {
  type: string;
  content?: Array<{ type: string; text?: string; refusal?: string }>;
  summary?: Array<{ text?: string }>;
  call_id?: string;
  name?: string;
  arguments?: string;
}

/** A Responses `response` body in canonical form. */
export function decodeResponsesReply(backend: string, raw: unknown): Reply {
  const body = raw as { id?: string; status?: string; output?: OutputItem[]; usage?: unknown; error?: { message?: string } | null };
  if (!body || !Array.isArray(body.output)) throw new RouterError(502, 'upstream', `Backend '${backend}' answered without an output list.`);
  if (body.status === 'failed') throw new RouterError(502, 'upstream', `Backend '${backend}' failed: ${String(body.error?.message ?? 'unknown error').slice(0, 200)}`);
  const content: ReplyPart[] = [];
  for (const item of body.output) {
    if (item.type === 'message') {
      const text = (item.content ?? []).map((part) => part.text ?? part.refusal ?? '').join('');
      if (text) content.push({ type: 'text', text });
    } else if (item.type === 'function_call') {
      content.push({ type: 'tool-call', id: item.call_id ?? '', name: item.name ?? '', arguments: item.arguments ?? '' });
    } else if (item.type === 'reasoning') {
      content.push({ type: 'reasoning', text: (item.summary ?? []).map((part) => part.text ?? '').join('\n') });
    }
  }
  return {
    ...(body.id ? { id: body.id } : {}),
    content,
    finishReason: finishReasonFromResponse(body.status, content.some((part) => part.type === 'tool-call')),
    usage: usageFromResponses(body.usage),
  };
}
