import { estimateRequestTokens, estimateTokens } from '../../core/estimate-tokens.js';
import { RouterError } from '../../core/errors.js';
import type { Reply, ReplyPart, Usage } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import { readGeminiResponse, type GeminiPart } from './api.js';
import { usageFromGemini } from './decode-usage.js';
import { finishReasonFor } from './map-finish-reason.js';
import { toolCallId } from './tool-call-id.js';

/**
 * A `generateContent` reply in canonical form: the first candidate's parts in order (thought
 * summaries as reasoning, text, function calls as tool calls whose ids carry what the next turn
 * must send back). A prompt Gemini blocked is an empty answer stopped by a content filter.
 */
export function decodeGeminiReply(backend: string, raw: unknown, request: CanonicalRequest): Reply {
  const response = readGeminiResponse(backend, raw);
  const candidate = response.candidates?.[0];
  const reported = usageFromGemini(response.usageMetadata);
  if (!candidate) {
    if (response.promptFeedback?.blockReason === undefined) throw new RouterError(502, 'upstream', `Backend '${backend}' sent a Gemini reply whose candidates[0] is missing.`);
    return {
      ...(response.responseId ? { id: response.responseId } : {}),
      content: [],
      finishReason: 'content-filter',
      usage: reported ?? { inputTokens: estimateRequestTokens(request), outputTokens: 0 },
    };
  }
  const content = replyParts(candidate.content?.parts ?? []);
  return {
    ...(response.responseId ? { id: response.responseId } : {}),
    content,
    finishReason: finishReasonFor(candidate.finishReason, content.some((part) => part.type === 'tool-call')),
    usage: reported ?? estimatedUsage(request, content),
  };
}

/** Gemini parts as canonical reply parts; neighbouring pieces of text (or of thought) are joined. */
export function replyParts(parts: GeminiPart[]): ReplyPart[] {
  const content: ReplyPart[] = [];
  for (const part of parts) {
    if (part.functionCall) {
      const { name, args, id } = part.functionCall;
      content.push({
        type: 'tool-call',
        id: toolCallId({ ...(id ? { upstreamId: id } : {}), ...(part.thoughtSignature ? { thoughtSignature: part.thoughtSignature } : {}) }),
        name,
        arguments: JSON.stringify(args ?? {}),
      });
    } else if (part.text !== undefined) {
      const type = part.thought ? 'reasoning' : 'text';
      const last = content.at(-1);
      if (last !== undefined && last.type === type && (last.type === 'text' || last.type === 'reasoning')) last.text += part.text;
      else if (part.text !== '') content.push({ type, text: part.text });
    }
    // inlineData / fileData in an answer (image models) and server-side tool parts have no canonical form.
  }
  return content;
}

function estimatedUsage(request: CanonicalRequest, content: ReplyPart[]): Usage {
  const produced = content.map((part) => (part.type === 'tool-call' ? part.arguments : part.text)).join('');
  return { inputTokens: estimateRequestTokens(request), outputTokens: estimateTokens(produced) };
}
