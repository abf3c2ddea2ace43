import { thinkingSignature } from './foreign-reasoning.js';
import { estimateRequestTokens } from '../../core/estimate-tokens.js';
import type { Usage } from '../../core/reply.js';
import { sequenceToolCalls } from '../../core/sequence-tool-calls.js';
import type { StreamEvent } from '../../core/stream-events.js';
import { anthropicErrorBody } from '../anthropic-error.js';
import type { EncodeContext } from '../client-format.js';
import { newId } from '../shared/ids.js';
import { jsonPieces, PIECE_CHARS } from '../shared/json-pieces.js';
import { sse } from '../shared/sse.js';
import type { MessagesOptions } from './decode-request.js';
import { routerContextManagement } from './context-management.js';
import { anthropicUsage } from './encode-usage.js';
import { anthropicStop } from './map-stop-reason.js';
import { withReplyWarnings, withUnshownDiagnostics } from '../shared/warnings.js';
import { metadataOf, type ProviderMetadata } from '../../core/provider-metadata.js';
import { ownReplyExtras, rawBlocksOf, withoutRelayed } from './relayed-fields.js';
import { messagesCitations, searchResultBlock, serverToolUsage, serverToolUseBlock } from './web-search-blocks.js';

type BlockKind = 'text' | 'thinking' | 'tool' | 'raw';

/**
 * The Anthropic streaming grammar from canonical events: message_start, ping, then for each block
 * content_block_start / _delta / _stop with rising indices, message_delta with stop_reason and
 * usage, message_stop. Every event carries its `event:` line; every block is closed.
 *
 * Usage follows one rule: each count is the best number known when its event is written.
 * message_start carries the upstream's own input count when the upstream gave one before its
 * first content (Anthropic's message_start, Gemini's first chunk), else the router's estimate of
 * the request (OpenAI Chat and Responses report usage only at the end). The closing message_delta
 * always carries the upstream's final counts, input and cache included: Anthropic's message_delta
 * usage is cumulative and may carry input_tokens
 * (https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types), so a client that
 * keeps the last value it saw, as the SDK's stream helper does, ends with the real count. A client
 * that reads input only from message_start sees the estimate.
 */
export async function* encodeMessagesStream(batches: AsyncIterable<StreamEvent[]>, context: EncodeContext<MessagesOptions>): AsyncGenerator<string> {
  let nextIndex = 0;
  let open: { index: number; kind: BlockKind } | undefined;
  let started = false;
  let thinkingPending = false;
  /** The open text block's text (for citations that cite a span of it) and the searches so far (for usage). */
  let blockText = '';
  let searches = 0;

  const startMessage = (usage: Usage | undefined, providerMetadata: ProviderMetadata | undefined) =>
    sse(
      {
        type: 'message_start',
        message: {
          id: newId('msg_'),
          type: 'message',
          role: 'assistant',
          model: context.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: anthropicUsage(usage ?? { inputTokens: estimateRequestTokens(context.request), outputTokens: 0 }),
          ...ownReplyExtras(providerMetadata).messageStartExtra,
        },
      },
      'message_start',
    ) + sse({ type: 'ping' }, 'ping');
  const startBlock = (kind: BlockKind, block: unknown) => {
    open = { index: nextIndex++, kind };
    return sse({ type: 'content_block_start', index: open.index, content_block: block }, 'content_block_start');
  };
  // Most of a stream is deltas: their frame is fixed text around the index and the delta itself.
  const delta = (payload: unknown) =>
    `event: content_block_delta\ndata: {"type":"content_block_delta","index":${open?.index ?? 0},"delta":${JSON.stringify(payload)}}\n\n`;
  /** The same frame as delta(), in pieces: for a delta longer than PIECE_CHARS. */
  function* deltaInPieces(payload: unknown): Generator<string> {
    yield `event: content_block_delta\ndata: {"type":"content_block_delta","index":${open?.index ?? 0},"delta":`;
    yield* jsonPieces(payload, PIECE_CHARS);
    yield '}\n\n';
  }
  const closeBlock = () => {
    if (!open) return '';
    const frame = sse({ type: 'content_block_stop', index: open.index }, 'content_block_stop');
    open = undefined;
    return frame;
  };

  /** Blocks an Anthropic upstream sent that have no canonical form (server tools), written back as they came. */
  const relayBlocks = (providerMetadata: ProviderMetadata | undefined, key: 'precedingBlocks' | 'trailingBlocks') => {
    let frames = '';
    for (const { block, deltas } of rawBlocksOf(providerMetadata, key)) {
      frames += closeBlock() + startBlock('raw', block);
      for (const payload of deltas) frames += delta(payload);
      frames += closeBlock();
    }
    return frames;
  };

  // The batches end at the terminal event (finish or error): the pipeline hands on nothing after it.
  for await (const batch of sequenceToolCalls(batches)) {
    let out = '';
    for (const event of batch) {
      if (!started && event.type !== 'error') {
        started = true;
        out += startMessage(event.type === 'start' ? event.usage : undefined, event.type === 'start' ? event.providerMetadata : undefined);
      }
      switch (event.type) {
        case 'text-start':
          out += closeBlock() + relayBlocks(event.providerMetadata, 'precedingBlocks') + startBlock('text', { type: 'text', text: '' });
          blockText = '';
          break;
        case 'text-delta':
          if (!event.text) break;
          blockText += event.text;
          if (event.text.length <= PIECE_CHARS) {
            out += delta({ type: 'text_delta', text: event.text });
            break;
          }
          if (out) yield out;
          out = '';
          yield* deltaInPieces({ type: 'text_delta', text: event.text });
          break;
        case 'reasoning-start':
          // Opened on the first delta: reasoning that arrives only redacted becomes a redacted_thinking block.
          out += closeBlock() + relayBlocks(event.providerMetadata, 'precedingBlocks');
          thinkingPending = true;
          break;
        case 'reasoning-delta':
          if (thinkingPending) {
            thinkingPending = false;
            out += startBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
          }
          if (!event.text) break;
          if (event.text.length <= PIECE_CHARS) {
            out += delta({ type: 'thinking_delta', thinking: event.text });
            break;
          }
          if (out) yield out;
          out = '';
          yield* deltaInPieces({ type: 'thinking_delta', thinking: event.text });
          break;
        case 'reasoning-end': {
          // Anthropic's own signature as it is; what another upstream needs again, sealed into it (foreign-reasoning.ts).
          const own = metadataOf(event.providerMetadata, 'anthropic');
          const signature = thinkingSignature(event.providerMetadata, context.secret, context.upstreamModel);
          if (thinkingPending) {
            thinkingPending = false;
            if (typeof own?.redactedData === 'string') out += startBlock('thinking', { type: 'redacted_thinking', data: own.redactedData }) + closeBlock();
            else if (signature) out += startBlock('thinking', { type: 'thinking', thinking: '', signature: '' }) + delta({ type: 'signature_delta', signature }) + closeBlock();
            break;
          }
          if (signature) out += delta({ type: 'signature_delta', signature });
          out += closeBlock();
          break;
        }
        case 'tool-call-start':
          out += closeBlock() + relayBlocks(event.providerMetadata, 'precedingBlocks') + startBlock('tool', { type: 'tool_use', id: event.id, name: event.name, input: {} });
          break;
        case 'tool-call-delta':
          if (!event.argumentsDelta) break;
          if (event.argumentsDelta.length <= PIECE_CHARS) {
            out += delta({ type: 'input_json_delta', partial_json: event.argumentsDelta });
            break;
          }
          if (out) yield out;
          out = '';
          yield* deltaInPieces({ type: 'input_json_delta', partial_json: event.argumentsDelta });
          break;
        case 'text-end': {
          const citations = messagesCitations(blockText, event.citations, event.providerMetadata);
          if (open?.kind === 'text' && citations) for (const citation of citations) out += delta({ type: 'citations_delta', citation });
          out += closeBlock();
          blockText = '';
          break;
        }
        case 'web-search': {
          // The call with its query as one input_json_delta, then the result block whole, as Anthropic streams them.
          const { input, ...call } = serverToolUseBlock(event.part);
          searches++;
          out += closeBlock() + startBlock('raw', { ...call, input: {} }) + delta({ type: 'input_json_delta', partial_json: JSON.stringify(input) }) + closeBlock();
          out += startBlock('raw', searchResultBlock(event.part)) + closeBlock();
          break;
        }
        case 'tool-call-end':
          out += closeBlock();
          break;
        case 'finish': {
          const own = ownReplyExtras(event.providerMetadata);
          const meta = withReplyWarnings(context.svcMeta(), withUnshownDiagnostics(withoutRelayed(event.warnings, event.providerMetadata), event.finish));
          out += closeBlock() +
            relayBlocks(event.providerMetadata, 'trailingBlocks') +
            sse(
              {
                type: 'message_delta',
                delta: { ...anthropicStop(event.reason, event.providerMetadata, event.finish?.stopSequence, event.finish?.refusal), ...own.messageDeltaExtra },
                usage: { ...anthropicUsage(event.usage), ...serverToolUsage(searches) },
                ...own.messageDeltaEventExtra,
                ...routerContextManagement(context.options.contextManagement, context.upstreamWireFormat),
                ...(meta.warnings ? { svc_meta: { warnings: meta.warnings } } : {}),
              },
              'message_delta',
            ) +
            sse({ type: 'message_stop' }, 'message_stop');
          break;
        }
        case 'error':
          out += closeBlock() + sse(anthropicErrorBody(event.error, context.requestId), 'error');
          break;
        default:
          break;
      }
    }
    if (out) yield out;
  }
}
