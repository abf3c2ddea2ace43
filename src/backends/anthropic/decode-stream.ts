import { RouterError } from '../../core/errors.js';
import { upstreamText } from '../../core/redact.js';
import type { Usage } from '../../core/reply.js';
import type { StreamEvent } from '../../core/stream-events.js';
import { eventBatches } from '../http/event-batches.js';
import { foreignErrorOf } from '../http/foreign-error-frame.js';
import { parseFrameJson, type SseFrame } from '../http/sse-decoder.js';
import { readAnthropicEvent } from './api.js';
import { usageFromAnthropic } from './decode-usage.js';
import { fallbackWarning, skippedBlockWarning } from './decode-reply.js';
import { anthropicFinish } from './map-stop-reason.js';
import { mergeMetadata, type ProviderMetadata } from '../../core/provider-metadata.js';
import { extraKeys, type RawAnthropicBlock } from './unread-fields.js';
import { canonicalCitations, searchPartOf, searchQueryOf } from './web-search.js';

const mergeExtra = (base: Record<string, unknown> | undefined, extra: Record<string, unknown> | undefined) => (extra ? { ...base, ...extra } : base);

type BlockKind = 'text' | 'thinking' | 'tool' | 'raw' | 'ignored' | 'search-call';

/** The message_delta fields the decoder reads; every other one is relayed to a Messages client. */
const KNOWN_DELTA_KEYS = new Set(['stop_reason', 'stop_sequence']);
const KNOWN_MESSAGE_DELTA_KEYS = new Set(['type', 'delta', 'usage']);
/** The message_start `message` fields the encoder writes itself; every other one is relayed. */
const KNOWN_MESSAGE_KEYS = new Set(['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence', 'usage']);

interface AnthropicEvent {
  type: string;
  index?: number;
  message?: { id?: string; usage?: unknown };
  content_block?: { type: string; id?: string; name?: string; data?: string; input?: unknown; tool_use_id?: string; content?: unknown };
  delta?: { type?: string; text?: string; thinking?: string; signature?: string; partial_json?: string; citation?: unknown; stop_reason?: string | null; stop_sequence?: string | null };
  usage?: unknown;
  error?: { type?: string; message?: string };
}

/**
 * The Anthropic event grammar to canonical events: blocks are tracked by index, a thinking
 * block's signature arrives as its last delta, and usage is completed by message_delta. A stream
 * that ends before message_stop was cut off, and says so.
 */
export async function* decodeAnthropicStream(backend: string, batches: AsyncIterable<SseFrame[]>): AsyncGenerator<StreamEvent[]> {
  const blocks = new Map<number, { kind: BlockKind; id?: string; signature?: string; citations?: unknown[]; raw?: RawAnthropicBlock; input?: string }>();
  // A web search's query (server_tool_use, its input streamed as JSON), until its result block arrives.
  const searchQueries = new Map<string, string>();
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let finish = anthropicFinish(undefined, undefined);
  const skipped: string[] = [];
  /** Server-side fallback's hops (a `fallback` block): which model answered, said to every client. */
  const answeredBy: string[] = [];
  let deltaExtra: Record<string, unknown> | undefined;
  let eventExtra: Record<string, unknown> | undefined;
  // Raw blocks ride, in order, on the next block's start event (or on finish), for a Messages
  // client to write back where they stood.
  let pending: RawAnthropicBlock[] = [];
  const carryPending = (key: 'precedingBlocks' | 'trailingBlocks'): ProviderMetadata | undefined => {
    if (!pending.length) return undefined;
    const carried = pending;
    pending = [];
    return { anthropic: { [key]: carried } };
  };
  const withPending = <E extends StreamEvent & { providerMetadata?: ProviderMetadata }>(event: E): E => {
    const carried = carryPending('precedingBlocks');
    if (!carried) return event;
    return { ...event, providerMetadata: mergeMetadata(event.providerMetadata, carried) };
  };

  let stopped = false;
  yield* eventBatches(batches, () => stopped, (frame, out) => {
    const raw = parseFrameJson(backend, frame);
    const foreign = foreignErrorOf(frame, raw);
    const event = readAnthropicEvent(backend, foreign ? { type: 'error', error: foreign } : raw);
    switch (event.type) {
      case 'message_start': {
        usage = usageFromAnthropic(event.message?.usage);
        const startExtra = extraKeys(event.message, KNOWN_MESSAGE_KEYS);
        out.push({
          type: 'start',
          ...(event.message?.id ? { id: event.message.id } : {}),
          usage,
          ...(startExtra ? { providerMetadata: { anthropic: { messageStartExtra: startExtra } } } : {}),
        });
        break;
      }
      case 'content_block_start': {
        const block = event.content_block;
        const index = event.index ?? blocks.size;
        if (block?.type === 'text') {
          blocks.set(index, { kind: 'text' });
          out.push(withPending({ type: 'text-start' }));
        } else if (block?.type === 'thinking') {
          blocks.set(index, { kind: 'thinking' });
          out.push(withPending({ type: 'reasoning-start' }));
        } else if (block?.type === 'redacted_thinking') {
          blocks.set(index, { kind: 'ignored' });
          out.push(withPending({ type: 'reasoning-start' }));
          out.push({ type: 'reasoning-end', providerMetadata: { anthropic: { redactedData: block.data ?? '' } } });
        } else if (block?.type === 'tool_use') {
          const id = block.id ?? `toolu_${index}`;
          blocks.set(index, { kind: 'tool', id });
          out.push(withPending({ type: 'tool-call-start', id, name: block.name ?? '' }));
        } else if (block?.type === 'server_tool_use' && block.name === 'web_search') {
          blocks.set(index, { kind: 'search-call', id: block.id ?? `srvtoolu_${index}`, input: '' });
          searchQueries.set(block.id ?? `srvtoolu_${index}`, searchQueryOf(block.input));
        } else if (block?.type === 'web_search_tool_result') {
          // The result block comes whole in its start event: https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool#streaming
          blocks.set(index, { kind: 'ignored' });
          const id = block.tool_use_id ?? '';
          out.push({ type: 'web-search', part: searchPartOf(id, searchQueries.get(id) ?? '', block.content) });
        } else if (block) {
          // Server-tool blocks and types yet to come: no canonical form, so kept whole for a
          // Messages client, and named in a warning for every other.
          blocks.set(index, { kind: 'raw', raw: { block: block as Record<string, unknown>, deltas: [] } });
          if (block.type === 'fallback') answeredBy.push(fallbackWarning(block));
          else if (!skipped.includes(block.type)) skipped.push(block.type);
        }
        break;
      }
      case 'content_block_delta': {
        const block = blocks.get(event.index ?? -1);
        const delta = event.delta;
        if (!block || !delta) break;
        if (block.kind === 'raw') block.raw!.deltas.push(delta);
        else if (delta.type === 'citations_delta' && block.kind === 'text' && delta.citation !== undefined) (block.citations ??= []).push(delta.citation);
        else if (delta.type === 'text_delta' && block.kind === 'text' && delta.text) out.push({ type: 'text-delta', text: delta.text });
        else if (delta.type === 'thinking_delta' && block.kind === 'thinking' && delta.thinking) out.push({ type: 'reasoning-delta', text: delta.thinking });
        else if (delta.type === 'signature_delta' && block.kind === 'thinking') block.signature = (block.signature ?? '') + (delta.signature ?? '');
        else if (delta.type === 'input_json_delta' && block.kind === 'search-call' && delta.partial_json) block.input += delta.partial_json;
        else if (delta.type === 'input_json_delta' && block.kind === 'tool' && delta.partial_json) {
          out.push({ type: 'tool-call-delta', id: block.id!, argumentsDelta: delta.partial_json });
        }
        break;
      }
      case 'content_block_stop': {
        const block = blocks.get(event.index ?? -1);
        if (block?.kind === 'text') {
          out.push({ type: 'text-end', ...(block.citations ? { citations: canonicalCitations(block.citations), providerMetadata: { anthropic: { citations: block.citations } } } : {}) });
        } else if (block?.kind === 'search-call' && block.input) searchQueries.set(block.id!, searchQueryOf(parseJson(block.input)));
        if (block?.kind === 'raw') pending.push(block.raw!);
        else if (block?.kind === 'thinking') out.push({ type: 'reasoning-end', ...(block.signature ? { providerMetadata: { anthropic: { signature: block.signature } } } : {}) });
        else if (block?.kind === 'tool') out.push({ type: 'tool-call-end', id: block.id! });
        break;
      }
      case 'message_delta':
        if (event.delta?.stop_reason) finish = anthropicFinish(event.delta.stop_reason, event.delta.stop_sequence, (event.delta as { stop_details?: unknown }).stop_details);
        usage = usageFromAnthropic(event.usage, usage);
        deltaExtra = mergeExtra(deltaExtra, extraKeys(event.delta, KNOWN_DELTA_KEYS));
        eventExtra = mergeExtra(eventExtra, extraKeys(event, KNOWN_MESSAGE_DELTA_KEYS));
        break;
      case 'message_stop': {
        const warnings = skipped.map(skippedBlockWarning);
        const own: Record<string, unknown> = {
          ...(deltaExtra ? { messageDeltaExtra: deltaExtra } : {}),
          ...(eventExtra ? { messageDeltaEventExtra: eventExtra } : {}),
          ...(warnings.length ? { relayedBlockWarnings: warnings } : {}),
        };
        let providerMetadata = mergeMetadata(finish.providerMetadata, carryPending('trailingBlocks'));
        if (Object.keys(own).length) providerMetadata = mergeMetadata(providerMetadata, { anthropic: own });
        out.push({
          type: 'finish',
          reason: finish.finish.unified,
          finish: finish.finish,
          usage,
          ...(providerMetadata ? { providerMetadata } : {}),
          ...(warnings.length || answeredBy.length ? { warnings: [...warnings, ...answeredBy] } : {}),
        });
        stopped = true;
        break;
      }
      case 'error': {
        const kind = event.error?.type;
        const message = `Backend '${backend}' failed mid-stream: ${upstreamText(event.error?.message ?? kind ?? 'unknown error')}`;
        throw kind === 'overloaded_error' ? new RouterError(503, 'overloaded', message) : new RouterError(502, 'upstream', message);
      }
      default:
        break; // ping and future event types
    }
  });
  if (!stopped) throw new RouterError(502, 'upstream', `Backend '${backend}' ended the stream before message_stop.`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
