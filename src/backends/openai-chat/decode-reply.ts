import { RouterError } from '../../core/errors.js';
import { upstreamText } from '../../core/redact.js';
import { estimateRequestTokens, estimateTokens } from '../../core/estimate-tokens.js';
import type { Reply, ReplyPart, Usage } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import { errorMessageOf } from '../http/upstream-error.js';
import { readChatReply } from './api.js';
import { usageFromChat } from './decode-usage.js';
import { finishReasonFromChat } from './map-finish-reason.js';
import { readReasoningDetails, reasoningDetailsMetadata } from './reasoning-details.js';

/** A `chat.completion` body in canonical form; a 200 that carries no choice is an upstream fault. */
export function decodeChatReply(backend: string, raw: unknown, request: CanonicalRequest): Reply {
  const body = readChatReply(backend, raw);
  const choice = body?.choices?.[0];
  if (!choice?.message) {
    throw new RouterError(502, 'upstream', `Backend '${backend}' answered without a choice${errorHint(raw)}.`);
  }
  const content: ReplyPart[] = [];
  const reasoning = choice.message.reasoning_content ?? choice.message.reasoning;
  // OpenRouter's blocks go with the reasoning, even when they hold it only encrypted.
  const details = reasoningDetailsMetadata(readReasoningDetails(choice.message.reasoning_details));
  if (reasoning || details) content.push({ type: 'reasoning', text: reasoning ?? '', ...(details ? { providerMetadata: details } : {}) });
  const text = choice.message.content || choice.message.refusal;
  if (text) content.push({ type: 'text', text });
  const calls = choice.message.tool_calls ?? [];
  calls.forEach((call, index) => {
    content.push({ type: 'tool-call', id: call.id || `call_${index}`, name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' });
  });
  // Some servers say "stop" after calling tools; the calls are what the client must act on.
  const unified = calls.length && choice.finish_reason !== 'length' ? 'tool-calls' : finishReasonFromChat(choice.finish_reason);
  return {
    ...(body.id ? { id: body.id } : {}),
    content,
    finishReason: unified,
    ...(typeof choice.finish_reason === 'string' ? { finish: { unified, raw: choice.finish_reason } } : {}),
    usage: usageFromChat(body.usage) ?? estimatedUsage(request, content),
  };
}

/** For a server that reports no usage: the request's estimate in, what the reply holds out. */
function estimatedUsage(request: CanonicalRequest, content: ReplyPart[]): Usage {
  const produced = content.map((part) => (part.type === 'tool-call' ? part.arguments : part.type === 'web-search' ? '' : part.text)).join('');
  return { inputTokens: estimateRequestTokens(request), outputTokens: estimateTokens(produced) };
}

function errorHint(raw: unknown): string {
  const said = errorMessageOf(raw);
  return said ? ` (it reported an error: ${upstreamText(said)})` : '';
}
