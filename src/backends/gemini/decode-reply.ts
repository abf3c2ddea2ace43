import { estimateRequestTokens, estimateTokens } from '../../core/estimate-tokens.js';
import { RouterError } from '../../core/errors.js';
import { mergeMetadata } from '../../core/provider-metadata.js';
import type { Reply, ReplyPart, Usage } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import { readGeminiResponse } from './api.js';
import type { GeminiReplyPart } from '../../wire/gemini/types.js';
import { usageFromGemini } from '../../wire/gemini/usage-metadata.js';
import { finishReasonFor } from '../../wire/gemini/finish-reason.js';
import { signatureMetadata, signatureOf } from '../../wire/gemini/thought-signature.js';
import { droppedPartWarning } from './api.js';
import { toolCallId } from './tool-call-id.js';
import { citationsWithin, groundingCitations, groundingSearch } from '../../wire/gemini/grounding.js';

/**
 * A `generateContent` reply in canonical form: the first candidate's parts in order (thought
 * summaries as reasoning, text, function calls as tool calls), each keeping its thoughtSignature
 * in `providerMetadata.gemini`. A tool call's id carries its signature too, since every client
 * format replays ids. A prompt Gemini blocked is an empty answer stopped by a content filter.
 */
export function decodeGeminiReply(backend: string, raw: unknown, request: CanonicalRequest): Reply {
  const response = readGeminiResponse(backend, raw);
  const candidate = response.candidates?.[0];
  const reported = usageFromGemini(response.usageMetadata);
  const id = response.responseId ? { id: response.responseId } : {};
  if (!candidate) {
    const blockReason = response.promptFeedback?.blockReason;
    if (blockReason === undefined) throw new RouterError(502, 'upstream', `Backend '${backend}' sent a Gemini reply whose candidates[0] is missing.`);
    return {
      ...id,
      content: [],
      finishReason: 'content-filter',
      finish: { unified: 'content-filter', raw: blockReason },
      usage: reported ?? { inputTokens: estimateRequestTokens(request), outputTokens: 0 },
    };
  }
  const { content, warnings } = replyParts(candidate.content?.parts ?? []);
  groundedParts(content, candidate.groundingMetadata, response.responseId);
  const finishReason = finishReasonFor(candidate.finishReason, content.some((part) => part.type === 'tool-call'));
  return {
    ...id,
    content,
    finishReason,
    finish: { unified: finishReason, ...(candidate.finishReason ? { raw: candidate.finishReason } : {}) },
    usage: reported ?? estimatedUsage(request, content),
    ...(warnings.length ? { warnings } : {}),
  };
}

/**
 * Gemini parts as canonical reply parts. Neighbouring pieces of text (or of thought) are joined,
 * a signature going with the joined part; an empty text that only carries a signature (Gemini 3
 * ends an answer so) gives it to the part before it.
 */
function replyParts(parts: GeminiReplyPart[]): { content: ReplyPart[]; warnings: string[] } {
  const content: ReplyPart[] = [];
  const warnings: string[] = [];
  for (const part of parts) {
    const signature = part.thoughtSignature;
    if (part.functionCall) {
      const { name, args, id } = part.functionCall;
      content.push({
        type: 'tool-call',
        id: toolCallId({ ...(id ? { upstreamId: id } : {}), ...(signature ? { thoughtSignature: signature } : {}) }),
        name,
        arguments: JSON.stringify(args ?? {}),
        ...signatureMetadata(signature),
      });
    } else if (part.text !== undefined) {
      const type = part.thought ? 'reasoning' : 'text';
      const last = content.at(-1);
      const joins = last !== undefined && (last.type === 'text' || last.type === 'reasoning') && (last.type === type || part.text === '') && !signatureOf(last.providerMetadata);
      if (joins) {
        last.text += part.text;
        if (signature) last.providerMetadata = mergeMetadata(last.providerMetadata, signatureMetadata(signature).providerMetadata);
      } else if (part.text !== '' || signature) {
        content.push({ type, text: part.text, ...signatureMetadata(signature) });
      }
    } else if (part.other !== undefined) {
      const warning = droppedPartWarning(part.other);
      if (!warnings.includes(warning)) warnings.push(warning);
    }
  }
  return { content, warnings };
}

/**
 * Google Search grounding on the answer: the search first (it ran before the answer), the
 * citations on the text parts they fall in.
 */
function groundedParts(content: ReplyPart[], metadata: Record<string, unknown> | undefined, responseId: string | undefined): void {
  const search = groundingSearch(metadata, `gs_${responseId ?? 'reply'}`);
  if (!search) return;
  const texts = content.filter((part): part is Extract<ReplyPart, { type: 'text' }> => part.type === 'text');
  const citations = groundingCitations(metadata, texts.map((part) => part.text).join(''));
  let start = 0;
  for (const part of texts) {
    const own = citationsWithin(citations, start, part.text.length);
    if (own.length) part.citations = own;
    start += part.text.length;
  }
  content.unshift(search);
}

function estimatedUsage(request: CanonicalRequest, content: ReplyPart[]): Usage {
  const produced = content.map((part) => (part.type === 'tool-call' ? part.arguments : part.type === 'web-search' ? '' : part.text)).join('');
  return { inputTokens: estimateRequestTokens(request), outputTokens: estimateTokens(produced) };
}
