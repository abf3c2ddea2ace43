import { estimateRequestTokens, tokensForChars } from '../../core/estimate-tokens.js';
import { RouterError } from '../../core/errors.js';
import type { Usage } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import type { StreamEvent } from '../../core/stream-events.js';
import { eventBatches } from '../http/event-batches.js';
import { parseFrameJson, type SseFrame } from '../http/sse-decoder.js';
import { readGeminiResponse } from './api.js';
import { usageFromGemini } from './decode-usage.js';
import { finishReasonFor } from './map-finish-reason.js';
import { toolCallId } from './tool-call-id.js';

/**
 * `streamGenerateContent?alt=sse` to canonical events. Each `data:` frame is a whole
 * GenerateContentResponse holding the next pieces of the first candidate; there is no `[DONE]`
 * (https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent). Usage comes
 * cumulatively, the last chunk carrying the finishReason, and that chunk ends the answer: the
 * decoder stops reading there whether or not the upstream closes its connection. A stream that
 * ends before any finishReason was cut off, and says so.
 *
 * Gemini sends each function call whole, in one part: it becomes a start, one argument delta and
 * an end at once.
 */
export async function* decodeGeminiStream(backend: string, batches: AsyncIterable<SseFrame[]>, request: CanonicalRequest): AsyncGenerator<StreamEvent[]> {
  let started = false;
  let open: 'text' | 'reasoning' | undefined;
  let madeCalls = false;
  let usage: Usage | undefined;
  let outputChars = 0;
  let done = false;

  const close = (out: StreamEvent[]): void => {
    if (open === 'text') out.push({ type: 'text-end' });
    if (open === 'reasoning') out.push({ type: 'reasoning-end' });
    open = undefined;
  };
  const finish = (out: StreamEvent[], reason: string | undefined, blocked = false): void => {
    close(out);
    out.push({
      type: 'finish',
      reason: blocked ? 'content-filter' : finishReasonFor(reason, madeCalls),
      usage: usage ?? { inputTokens: estimateRequestTokens(request), outputTokens: tokensForChars(outputChars) },
    });
    done = true;
  };

  yield* eventBatches(batches, () => done, (frame, out) => {
    const chunk = readGeminiResponse(backend, parseFrameJson(backend, frame));
    usage = usageFromGemini(chunk.usageMetadata) ?? usage;
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
      if (chunk.promptFeedback?.blockReason !== undefined) finish(out, undefined, true);
      return;
    }
    for (const part of candidate.content?.parts ?? []) {
      if (part.functionCall) {
        close(out);
        const { name, args, id: upstreamId } = part.functionCall;
        const id = toolCallId({ ...(upstreamId ? { upstreamId } : {}), ...(part.thoughtSignature ? { thoughtSignature: part.thoughtSignature } : {}) });
        const argumentsJson = JSON.stringify(args ?? {});
        outputChars += name.length + argumentsJson.length;
        madeCalls = true;
        out.push({ type: 'tool-call-start', id, name }, { type: 'tool-call-delta', id, argumentsDelta: argumentsJson }, { type: 'tool-call-end', id });
      } else if (part.text) {
        const kind = part.thought ? 'reasoning' : 'text';
        if (open !== kind) {
          close(out);
          open = kind;
          out.push(kind === 'text' ? { type: 'text-start' } : { type: 'reasoning-start' });
        }
        outputChars += part.text.length;
        out.push(kind === 'text' ? { type: 'text-delta', text: part.text } : { type: 'reasoning-delta', text: part.text });
      }
    }
    if (candidate.finishReason !== undefined) finish(out, candidate.finishReason);
  });
  if (!done) throw new RouterError(502, 'upstream', `Backend '${backend}' ended the stream before it finished.`);
}
