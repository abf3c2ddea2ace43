import { thinkingSignature } from './foreign-reasoning.js';
import type { Reply, ReplyPart } from '../../core/reply.js';
import { foldedBlock, ownReplyExtras, placedBlocksOf, rawBlocksOf, withoutRelayed } from './relayed-fields.js';
import type { EncodeContext } from '../client-format.js';
import { newId } from '../shared/ids.js';
import type { MessagesOptions } from './decode-request.js';
import { routerContextManagement } from './context-management.js';
import { anthropicUsage } from './encode-usage.js';
import { anthropicStop } from './map-stop-reason.js';
import { withReplyWarnings, withUnshownDiagnostics } from '../shared/warnings.js';
import { metadataOf } from '../../core/provider-metadata.js';
import { messagesCitations, searchResultBlock, serverToolUsage, serverToolUseBlock } from './web-search-blocks.js';

/** Tool arguments as an object; text a model produced that is not JSON is kept under `_raw`. */
function parseToolInput(args: string): unknown {
  if (args.trim() === '') return {};
  try {
    return JSON.parse(args);
  } catch {
    return { _raw: args };
  }
}

/** An Anthropic `message` body with its content blocks (plus svc_meta, which the SDKs ignore). */
export function encodeMessagesReply(reply: Reply, context: EncodeContext<MessagesOptions>) {
  // Blocks an Anthropic upstream sent that have no canonical form, back where they stood: a
  // non-streamed reply places them by part index, a folded stream on the part after them.
  const placed = placedBlocksOf(reply.providerMetadata);
  const content: Array<Record<string, unknown>> = [];
  reply.content.forEach((part, index) => {
    for (const entry of placed) if (entry.at === index) content.push(foldedBlock(entry));
    for (const raw of rawBlocksOf(part.providerMetadata, 'precedingBlocks')) content.push(foldedBlock(raw));
    content.push(...partBlocks(part, context.secret, context.upstreamModel));
  });
  for (const entry of placed) if (entry.at >= reply.content.length) content.push(foldedBlock(entry));
  for (const raw of rawBlocksOf(reply.providerMetadata, 'trailingBlocks')) content.push(foldedBlock(raw));
  // An Anthropic upstream's own unread fields, where it put them (a streamed message_delta's are the message's).
  const own = ownReplyExtras(reply.providerMetadata);
  return {
    id: newId('msg_'),
    type: 'message',
    role: 'assistant',
    model: context.model,
    content,
    ...anthropicStop(reply.finishReason, reply.providerMetadata, reply.finish?.stopSequence, reply.finish?.refusal),
    usage: { ...anthropicUsage(reply.usage), ...serverToolUsage(reply.content.filter((part) => part.type === 'web-search').length) },
    ...own.messageStartExtra,
    ...own.messageDeltaEventExtra,
    ...own.messageDeltaExtra,
    ...own.replyExtra,
    ...routerContextManagement(context.options.contextManagement, context.upstreamWireFormat),
    svc_meta: withReplyWarnings(context.svcMeta(), withUnshownDiagnostics(withoutRelayed(reply.warnings, reply.providerMetadata), reply.finish)),
  };
}

function partBlocks(part: ReplyPart, secret: string, writer: string | undefined): Array<Record<string, unknown>> {
  switch (part.type) {
    case 'text': {
      const citations = messagesCitations(part.text, part.citations, part.providerMetadata);
      return [{ type: 'text', text: part.text, ...(citations ? { citations } : {}) }];
    }
    case 'web-search':
      return [serverToolUseBlock(part), searchResultBlock(part)];
    case 'reasoning': {
      // Anthropic's own signature as it is; what another upstream needs again, sealed into it (foreign-reasoning.ts).
      const own = metadataOf(part.providerMetadata, 'anthropic');
      if (typeof own?.redactedData === 'string' && !part.text) return [{ type: 'redacted_thinking', data: own.redactedData }];
      const signature = thinkingSignature(part.providerMetadata, secret, part.writer ?? writer);
      if (!part.text && signature === undefined) return [];
      return [{ type: 'thinking', thinking: part.text, signature: signature ?? '' }];
    }
    case 'tool-call':
      return [{ type: 'tool_use', id: part.id, name: part.name, input: parseToolInput(part.arguments) }];
  }
}
