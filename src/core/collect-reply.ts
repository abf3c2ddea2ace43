import type { Reply, ReplyPart } from './reply.js';
import type { StreamEvent } from './stream-events.js';
import type { ToolCallPart } from './request.js';

/** Folds a canonical event stream into one reply (for clients that did not ask to stream). */
export async function collectReply(batches: AsyncIterable<StreamEvent[]>): Promise<Reply> {
  const content: ReplyPart[] = [];
  const calls = new Map<string, ToolCallPart>();
  const reply: Reply = { content, finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } };
  let open: ReplyPart | undefined;
  for await (const batch of batches) for (const event of batch) {
    switch (event.type) {
      case 'start':
        if (event.id) reply.id = event.id;
        if (event.usage) reply.usage = { ...event.usage };
        break;
      case 'text-start':
        open = { type: 'text', text: '' };
        content.push(open);
        break;
      case 'text-delta':
        if (open?.type === 'text') open.text += event.text;
        break;
      case 'reasoning-start':
        open = { type: 'reasoning', text: '' };
        content.push(open);
        break;
      case 'reasoning-delta':
        if (open?.type === 'reasoning') open.text += event.text;
        break;
      case 'reasoning-end':
        if (open?.type === 'reasoning') {
          if (event.signature) open.signature = event.signature;
          if (event.redactedData) open.redactedData = event.redactedData;
          if (event.origin) open.origin = event.origin;
        }
        open = undefined;
        break;
      case 'text-end':
        open = undefined;
        break;
      case 'tool-call-start': {
        const call: ToolCallPart = { type: 'tool-call', id: event.id, name: event.name, arguments: '' };
        calls.set(event.id, call);
        content.push(call);
        break;
      }
      case 'tool-call-delta': {
        const call = calls.get(event.id);
        if (call) call.arguments += event.argumentsDelta;
        break;
      }
      case 'tool-call-end':
        break;
      case 'finish':
        reply.finishReason = event.reason;
        reply.usage = event.usage;
        break;
      case 'error':
        throw event.error;
    }
  }
  return reply;
}
