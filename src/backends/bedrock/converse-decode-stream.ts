import { estimateRequestTokens, tokensForChars } from '../../core/estimate-tokens.js';
import { RouterError } from '../../core/errors.js';
import type { ProviderMetadata } from '../../core/provider-metadata.js';
import { upstreamText } from '../../core/redact.js';
import type { Finish, Usage } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import type { StreamEvent } from '../../core/stream-events.js';
import { eventBatches } from '../http/event-batches.js';
import { parseFrameJson, type SseFrame } from '../http/sse-decoder.js';
import type { ConverseUsage } from './converse-api.js';
import { unrelayedBlockWarning } from './converse-decode-reply.js';
import { BEDROCK_METADATA } from './converse-encode.js';
import { converseFinish, usageFromConverse } from './converse-finish.js';
import { CONVERSE_EXCEPTION } from './converse-frames.js';

/** AWS's stream exceptions that say "try again later", answered as overload (503); any other is the upstream's failure (502). */
const OVERLOADED = new Set(['throttlingException', 'serviceUnavailableException']);

interface ConverseStreamEvent {
  contentBlockIndex?: number;
  start?: { toolUse?: { toolUseId?: string; name?: string } };
  delta?: { text?: string; toolUse?: { input?: string }; reasoningContent?: { text?: string; signature?: string; redactedContent?: string } } & Record<string, unknown>;
  stopReason?: string;
  usage?: ConverseUsage;
  type?: string;
  message?: string;
}

/**
 * ConverseStream's events (converse-frames.ts) as canonical events
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html):
 * text and reasoning blocks open with their first delta (only a tool use has a contentBlockStart),
 * and close at their contentBlockStop. `messageStop` carries the stop reason and `metadata`, the
 * last event, the usage: the answer ends there. A stream that ends after messageStop without
 * metadata still ends well, its usage estimated; one that ends before messageStop was cut off.
 */
export async function* decodeConverseStream(backend: string, batches: AsyncIterable<SseFrame[]>, request: CanonicalRequest): AsyncGenerator<StreamEvent[]> {
  let started = false;
  /** The open text or reasoning block, by its index. */
  let open: { kind: 'text' | 'reasoning'; index: number | undefined; metadata?: Record<string, unknown> } | undefined;
  /** Open tool calls: content block index → call id. */
  const calls = new Map<number, string>();
  let finish: Finish | undefined;
  let usage: Usage | undefined;
  let outputChars = 0;
  let done = false;
  const warnings: string[] = [];

  const close = (out: StreamEvent[]): void => {
    if (!open) return;
    const providerMetadata: ProviderMetadata | undefined = open.metadata ? { [BEDROCK_METADATA]: open.metadata } : undefined;
    out.push({ type: open.kind === 'text' ? 'text-end' : 'reasoning-end', ...(providerMetadata ? { providerMetadata } : {}) } as StreamEvent);
    open = undefined;
  };
  const openBlock = (out: StreamEvent[], kind: 'text' | 'reasoning', index: number | undefined): NonNullable<typeof open> => {
    if (open && open.kind === kind && open.index === index) return open;
    close(out);
    out.push({ type: kind === 'text' ? 'text-start' : 'reasoning-start' });
    return (open = { kind, index });
  };
  const end = (out: StreamEvent[]): void => {
    out.push({
      type: 'finish',
      reason: finish!.unified,
      finish: finish!,
      usage: usage ?? { inputTokens: estimateRequestTokens(request), outputTokens: tokensForChars(outputChars) },
      ...(warnings.length ? { warnings } : {}),
    });
    done = true;
  };

  yield* eventBatches(batches, () => done, (frame, out) => {
    const event = parseFrameJson<ConverseStreamEvent>(backend, frame);
    if (frame.event === CONVERSE_EXCEPTION) {
      const message = `Backend '${backend}' failed mid-stream: ${upstreamText(`${event.type}: ${event.message}`)}`;
      throw OVERLOADED.has(String(event.type)) ? new RouterError(503, 'overloaded', message) : new RouterError(502, 'upstream', message);
    }
    if (!started) {
      started = true;
      out.push({ type: 'start', usage: { inputTokens: estimateRequestTokens(request), outputTokens: 0 } });
    }
    const index = typeof event.contentBlockIndex === 'number' ? event.contentBlockIndex : undefined;
    switch (frame.event) {
      case 'contentBlockStart': {
        const toolUse = event.start?.toolUse;
        if (!toolUse) return;
        close(out);
        const id = String(toolUse.toolUseId ?? `tooluse_${index ?? calls.size}`);
        calls.set(index ?? -1, id);
        outputChars += String(toolUse.name ?? '').length;
        out.push({ type: 'tool-call-start', id, name: String(toolUse.name ?? '') });
        return;
      }
      case 'contentBlockDelta': {
        const delta = event.delta ?? {};
        if (typeof delta.text === 'string') {
          openBlock(out, 'text', index);
          outputChars += delta.text.length;
          if (delta.text) out.push({ type: 'text-delta', text: delta.text });
        } else if (delta.toolUse) {
          const id = calls.get(index ?? -1);
          if (id === undefined) throw new RouterError(502, 'upstream', `Backend '${backend}' sent tool input for content block ${index} before its contentBlockStart.`);
          const input = String(delta.toolUse.input ?? '');
          outputChars += input.length;
          if (input) out.push({ type: 'tool-call-delta', id, argumentsDelta: input });
        } else if (delta.reasoningContent) {
          const reasoning = delta.reasoningContent;
          const block = openBlock(out, 'reasoning', index);
          if (typeof reasoning.text === 'string' && reasoning.text) {
            outputChars += reasoning.text.length;
            out.push({ type: 'reasoning-delta', text: reasoning.text });
          }
          // The signature and redacted bytes ride on the block's end, where canonical streams carry provider data.
          if (typeof reasoning.signature === 'string') block.metadata = { ...block.metadata, signature: reasoning.signature };
          if (typeof reasoning.redactedContent === 'string') block.metadata = { ...block.metadata, redactedContent: reasoning.redactedContent };
        } else {
          const warning = unrelayedBlockWarning(Object.keys(delta)[0] ?? 'unknown');
          if (!warnings.includes(warning)) warnings.push(warning);
        }
        return;
      }
      case 'contentBlockStop': {
        const id = calls.get(index ?? -1);
        if (id !== undefined) {
          calls.delete(index ?? -1);
          out.push({ type: 'tool-call-end', id });
        } else if (open && open.index === index) close(out);
        return;
      }
      case 'messageStop':
        close(out);
        for (const id of calls.values()) out.push({ type: 'tool-call-end', id });
        calls.clear();
        finish = converseFinish(event.stopReason);
        return;
      case 'metadata':
        usage = usageFromConverse(event.usage) ?? usage;
        if (finish) end(out);
        return;
      default:
        // messageStart, and event types added later, carry nothing the answer needs.
        return;
    }
  });
  if (done) return;
  if (!finish) throw new RouterError(502, 'upstream', `Backend '${backend}' ended the stream before it finished.`);
  const out: StreamEvent[] = [];
  end(out);
  yield out;
}
