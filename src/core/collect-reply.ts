import { mergeMetadata } from './provider-metadata.js';
import type { Reply, ReplyPart } from './reply.js';
import type { StreamEvent } from './stream-events.js';
import type { ToolCallPart } from './request.js';

/** Folds a canonical event stream into one reply (for clients that did not ask to stream). */
export async function collectReply(batches: AsyncIterable<StreamEvent[]>): Promise<Reply> {
  const content: ReplyPart[] = [];
  const calls = new Map<string, ToolCallPart>();
  const reply: Reply = { content, finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } };
  let open: ReplyPart | undefined;
  const endOpen = (event: { providerMetadata?: Reply['providerMetadata'] }) => {
    if (open && event.providerMetadata) open.providerMetadata = mergeMetadata(open.providerMetadata, event.providerMetadata)!;
    open = undefined;
  };
  for await (const batch of batches) for (const event of batch) {
    switch (event.type) {
      case 'start':
        if (event.id) reply.id = event.id;
        if (event.usage) reply.usage = { ...event.usage };
        if (event.providerMetadata) reply.providerMetadata = event.providerMetadata;
        break;
      case 'text-start':
        open = { type: 'text', text: '', ...(event.providerMetadata ? { providerMetadata: event.providerMetadata } : {}) };
        content.push(open);
        break;
      case 'text-delta':
        if (open?.type === 'text') open.text += event.text;
        break;
      case 'reasoning-start':
        open = { type: 'reasoning', text: '', ...(event.providerMetadata ? { providerMetadata: event.providerMetadata } : {}) };
        content.push(open);
        break;
      case 'reasoning-delta':
        if (open?.type === 'reasoning') open.text += event.text;
        break;
      case 'reasoning-end':
        endOpen(open?.type === 'reasoning' ? event : {});
        break;
      case 'text-end':
        if (open?.type === 'text' && event.citations?.length) open.citations = [...(open.citations ?? []), ...event.citations];
        endOpen(open?.type === 'text' ? event : {});
        break;
      case 'web-search':
        open = undefined;
        content.push(event.part);
        break;
      case 'tool-call-start': {
        const call: ToolCallPart = { type: 'tool-call', id: event.id, name: event.name, arguments: '', ...(event.providerMetadata ? { providerMetadata: event.providerMetadata } : {}) };
        calls.set(event.id, call);
        content.push(call);
        break;
      }
      case 'tool-call-delta': {
        const call = calls.get(event.id);
        if (call) call.arguments += event.argumentsDelta;
        break;
      }
      case 'tool-call-end': {
        const call = calls.get(event.id);
        if (call && event.providerMetadata) call.providerMetadata = mergeMetadata(call.providerMetadata, event.providerMetadata)!;
        break;
      }
      case 'finish':
        reply.finishReason = event.reason;
        if (event.finish) reply.finish = event.finish;
        reply.usage = event.usage;
        if (event.providerMetadata) reply.providerMetadata = mergeMetadata(reply.providerMetadata, event.providerMetadata)!;
        if (event.warnings?.length) reply.warnings = event.warnings;
        break;
      case 'error':
        throw event.error;
    }
  }
  return reply;
}
