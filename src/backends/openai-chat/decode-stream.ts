import { RouterError } from '../../core/errors.js';
import { estimateRequestTokens, tokensForChars } from '../../core/estimate-tokens.js';
import { upstreamText } from '../../core/redact.js';
import type { FinishReason, Usage } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import type { StreamEvent } from '../../core/stream-events.js';
import { eventBatches } from '../http/event-batches.js';
import { parseFrameJson, type SseFrame } from '../http/sse-decoder.js';
import { errorMessageOf } from '../http/upstream-error.js';
import { openedCallName, readChatChunk, type ChatChunkToolCall } from './api.js';
import { readCommonChatChunk } from './common-chunks.js';
import { usageFromChat } from './decode-usage.js';
import { finishReasonFromChat } from './map-finish-reason.js';
import { ReasoningDetailsJoiner, readReasoningDetails, reasoningDetailsMetadata } from './reasoning-details.js';

/**
 * Chat Completions chunks to canonical events. Tool calls are keyed by their `index`; their id and
 * name come in the first delta and arguments in later ones. A stream that ends without a finish
 * reason or `[DONE]` was cut off, and says so.
 *
 * The stream is over at `[DONE]`, or once a finish reason and then usage have arrived (the usage
 * chunk is the last one OpenAI sends before `[DONE]`): the decoder stops reading there, whether or
 * not the upstream closes its connection, so the client gets its ending at once.
 */
export async function* decodeChatStream(backend: string, batches: AsyncIterable<SseFrame[]>, request: CanonicalRequest): AsyncGenerator<StreamEvent[]> {
  let started = false;
  let open: 'text' | 'reasoning' | undefined;
  const calls = new Map<number, string>();
  let finish: FinishReason | undefined;
  let rawFinish: string | undefined;
  let usage: Usage | undefined;
  let outputChars = 0;
  let done = false;
  const details = new ReasoningDetailsJoiner();

  const close = (out: StreamEvent[]): void => {
    if (open === 'text') out.push({ type: 'text-end' });
    if (open === 'reasoning') {
      const metadata = reasoningDetailsMetadata(details.take());
      out.push({ type: 'reasoning-end', ...(metadata ? { providerMetadata: metadata } : {}) });
    }
    open = undefined;
  };
  /** Text or reasoning arrives: open its block (closing any other) and pass the delta on. */
  const pushDelta = (kind: 'text' | 'reasoning', text: string, out: StreamEvent[]): void => {
    if (open !== kind) {
      close(out);
      open = kind;
      out.push(kind === 'text' ? { type: 'text-start' } : { type: 'reasoning-start' });
    }
    outputChars += text.length;
    out.push(kind === 'text' ? { type: 'text-delta', text } : { type: 'reasoning-delta', text });
  };

  yield* eventBatches(batches, () => done, (frame, out) => {
    if (frame.data === '[DONE]') {
      done = true;
      return;
    }
    // Most frames are text or tool-argument deltas: read those from their template, the rest in full.
    const chunk = readCommonChatChunk(frame.data) ?? readChatChunk(backend, parseFrameJson(backend, frame));
    if (chunk.error) throw new RouterError(502, 'upstream', `Backend '${backend}' failed mid-stream: ${upstreamText(errorMessageOf(chunk) ?? 'unknown error')}`);
    if (!started) {
      started = true;
      out.push({ type: 'start', ...(chunk.id ? { id: chunk.id } : {}), usage: { inputTokens: estimateRequestTokens(request), outputTokens: 0 } });
    }
    const reported = usageFromChat(chunk.usage);
    if (reported) usage = reported;
    const choice = chunk.choices?.[0];
    // Usage with or after the finish reason: nothing more is coming that the client needs.
    if (reported && (finish !== undefined || choice?.finish_reason)) done = true;
    if (!choice) return;
    const delta = choice.delta ?? {};
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) pushDelta('reasoning', reasoning, out);
    // OpenRouter's reasoning blocks belong to the reasoning block, which they open when they come alone (encrypted).
    const pieces = readReasoningDetails(delta.reasoning_details);
    if (pieces.length) {
      if (open !== 'reasoning') {
        close(out);
        open = 'reasoning';
        out.push({ type: 'reasoning-start' });
      }
      details.add(pieces);
    }
    // A refusal is what the model said instead of an answer: the client sees it as text.
    const text = delta.content || delta.refusal;
    if (text) pushDelta('text', text, out);
    for (const call of delta.tool_calls ?? []) {
      const index = toolCallIndex(call, calls);
      let id = calls.get(index);
      if (id === undefined) {
        close(out);
        id = call.id || `call_${index}_${Date.now().toString(36)}`;
        calls.set(index, id);
        out.push({ type: 'tool-call-start', id, name: openedCallName(backend, delta, call) });
      }
      const args = call.function?.arguments;
      if (args) {
        outputChars += args.length;
        out.push({ type: 'tool-call-delta', id, argumentsDelta: args });
      }
    }
    if (choice.finish_reason) {
      finish = finishReasonFromChat(choice.finish_reason);
      rawFinish = choice.finish_reason;
    }
  });
  if (!done && finish === undefined) throw new RouterError(502, 'upstream', `Backend '${backend}' ended the stream before it finished.`);
  const out: StreamEvent[] = [];
  if (!started) out.push({ type: 'start', usage: { inputTokens: estimateRequestTokens(request), outputTokens: 0 } });
  close(out);
  for (const id of calls.values()) out.push({ type: 'tool-call-end', id });
  // Some servers say "stop" after calling tools; the calls are what the client must act on.
  const reason = calls.size && (finish === undefined || finish === 'stop') ? 'tool-calls' : (finish ?? 'stop');
  out.push({
    type: 'finish',
    reason,
    ...(rawFinish !== undefined ? { finish: { unified: reason, raw: rawFinish } } : {}),
    usage: usage ?? { inputTokens: estimateRequestTokens(request), outputTokens: tokensForChars(outputChars) },
  });
  yield out;
}

/**
 * The stream position of a tool-call delta: its `index`, or, from servers that send each call
 * whole without one (Gemini's compatible API), a new position per new id.
 */
function toolCallIndex(call: ChatChunkToolCall, calls: Map<number, string>): number {
  if (call.index !== undefined && call.index !== null) return call.index;
  if (call.id) {
    for (const [index, id] of calls) if (id === call.id) return index;
    return calls.size;
  }
  return Math.max(0, calls.size - 1);
}
