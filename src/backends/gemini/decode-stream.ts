import { estimateRequestTokens, tokensForChars } from '../../core/estimate-tokens.js';
import { RouterError } from '../../core/errors.js';
import type { FinishReason, Usage } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import type { StreamEvent } from '../../core/stream-events.js';
import { eventBatches } from '../http/event-batches.js';
import { parseFrameJson, type SseFrame } from '../http/sse-decoder.js';
import { readGeminiResponse } from './api.js';
import { usageFromGemini } from '../../wire/gemini/usage-metadata.js';
import { finishReasonFor } from '../../wire/gemini/finish-reason.js';
import { signatureMetadata } from '../../wire/gemini/thought-signature.js';
import { droppedPartWarning } from './api.js';
import { toolCallId } from './tool-call-id.js';
import { citationsWithin, groundingCitations, groundingSearch } from '../../wire/gemini/grounding.js';

/**
 * `streamGenerateContent?alt=sse` to canonical events. Each `data:` frame is a whole
 * GenerateContentResponse holding the next pieces of the first candidate; there is no `[DONE]`
 * (https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent). Usage comes
 * cumulatively, the last chunk carrying the finishReason, and that chunk ends the answer: the
 * decoder stops reading there whether or not the upstream closes its connection. A stream that
 * ends before any finishReason was cut off, and says so.
 *
 * Gemini sends each function call whole, in one part: it becomes a start, one argument delta and
 * an end at once. A thoughtSignature goes on the end of the text or reasoning block it came in
 * (Gemini 3 sends a text answer's in an empty text part of the last chunk) and on a call's start.
 */
export async function* decodeGeminiStream(backend: string, batches: AsyncIterable<SseFrame[]>, request: CanonicalRequest): AsyncGenerator<StreamEvent[]> {
  let started = false;
  let open: { kind: 'text' | 'reasoning'; signature?: string } | undefined;
  let madeCalls = false;
  let usage: Usage | undefined;
  let outputChars = 0;
  let done = false;
  const warnings: string[] = [];
  /** Google Search grounding (the latest chunk's), the answer's text so far, and where the open text block began in it. */
  let grounding: Record<string, unknown> | undefined;
  let answerText = '';
  let blockStart = 0;
  let responseId: string | undefined;

  const close = (out: StreamEvent[], citations: ReturnType<typeof groundingCitations> = []): void => {
    if (!open) return;
    const metadata = signatureMetadata(open.signature);
    const own = open.kind === 'text' ? citationsWithin(citations, blockStart, answerText.length - blockStart) : [];
    out.push(open.kind === 'text' ? { type: 'text-end', ...metadata, ...(own.length ? { citations: own } : {}) } : { type: 'reasoning-end', ...metadata });
    open = undefined;
  };
  const finish = (out: StreamEvent[], reason: FinishReason, raw: string | undefined): void => {
    // Grounding comes with the answer's last chunks: its citations go on the text block still open,
    // and the search after it (a streamed answer cannot put it back before text already sent).
    const search = groundingSearch(grounding, `gs_${responseId ?? 'stream'}`);
    const citations = search ? groundingCitations(grounding, answerText) : [];
    const openText = open?.kind === 'text';
    close(out, citations);
    const placed = openText ? citationsWithin(citations, blockStart, answerText.length - blockStart).length : 0;
    if (citations.length > placed) warnings.push(`${citations.length - placed} web search citations fell on text already sent and were left out.`);
    if (search) out.push({ type: 'web-search', part: search });
    out.push({
      type: 'finish',
      reason,
      finish: { unified: reason, ...(raw ? { raw } : {}) },
      usage: usage ?? { inputTokens: estimateRequestTokens(request), outputTokens: tokensForChars(outputChars) },
      ...(warnings.length ? { warnings } : {}),
    });
    done = true;
  };

  yield* eventBatches(batches, () => done, (frame, out) => {
    const chunk = readGeminiResponse(backend, parseFrameJson(backend, frame));
    usage = usageFromGemini(chunk.usageMetadata) ?? usage;
    responseId ??= chunk.responseId;
    if (chunk.candidates?.[0]?.groundingMetadata) grounding = chunk.candidates[0].groundingMetadata;
    if (!started) {
      started = true;
      out.push({
        type: 'start',
        ...(chunk.responseId ? { id: chunk.responseId } : {}),
        usage: { inputTokens: usage?.inputTokens ?? estimateRequestTokens(request), outputTokens: 0 },
      });
    }
    const candidate = chunk.candidates?.[0];
    if (!candidate) {
      const blockReason = chunk.promptFeedback?.blockReason;
      if (blockReason !== undefined) finish(out, 'content-filter', blockReason);
      return;
    }
    for (const part of candidate.content?.parts ?? []) {
      const signature = part.thoughtSignature;
      if (part.functionCall) {
        close(out);
        const { name, args, id: upstreamId } = part.functionCall;
        const id = toolCallId({ ...(upstreamId ? { upstreamId } : {}), ...(signature ? { thoughtSignature: signature } : {}) });
        const argumentsJson = JSON.stringify(args ?? {});
        outputChars += name.length + argumentsJson.length;
        madeCalls = true;
        out.push({ type: 'tool-call-start', id, name, ...signatureMetadata(signature) }, { type: 'tool-call-delta', id, argumentsDelta: argumentsJson }, { type: 'tool-call-end', id });
      } else if (part.text !== undefined) {
        const kind = part.thought ? 'reasoning' : 'text';
        if (part.text === '') {
          // Only a signature: it belongs to the block it ends, or stands as an empty text of its own.
          if (!signature) continue;
          if (!open || open.signature) {
            close(out);
            open = { kind: 'text' };
            out.push({ type: 'text-start' });
          }
          open.signature = signature;
          continue;
        }
        if (open?.kind !== kind || open.signature) {
          close(out);
          open = { kind };
          if (kind === 'text') blockStart = answerText.length;
          out.push(kind === 'text' ? { type: 'text-start' } : { type: 'reasoning-start' });
        }
        if (signature) open.signature = signature;
        if (kind === 'text') answerText += part.text;
        outputChars += part.text.length;
        out.push(kind === 'text' ? { type: 'text-delta', text: part.text } : { type: 'reasoning-delta', text: part.text });
      } else if (part.other !== undefined) {
        const warning = droppedPartWarning(part.other);
        if (!warnings.includes(warning)) warnings.push(warning);
      }
    }
    if (candidate.finishReason !== undefined) finish(out, finishReasonFor(candidate.finishReason, madeCalls), candidate.finishReason);
  });
  if (!done) throw new RouterError(502, 'upstream', `Backend '${backend}' ended the stream before it finished.`);
}
