import type { Reply } from '../../core/reply.js';
import type { EncodeContext } from '../client-format.js';
import { newId } from '../shared/ids.js';
import type { MessagesOptions } from './decode-request.js';
import { anthropicUsage } from './encode-usage.js';
import { anthropicStopReason } from './map-stop-reason.js';

/** Tool arguments as an object; text a model produced that is not JSON is kept under `_raw`. */
export function parseToolInput(args: string): unknown {
  if (args.trim() === '') return {};
  try {
    return JSON.parse(args);
  } catch {
    return { _raw: args };
  }
}

/** An Anthropic `message` body with its content blocks (plus svc_meta, which the SDKs ignore). */
export function encodeMessagesReply(reply: Reply, context: EncodeContext<MessagesOptions>) {
  const content = reply.content.flatMap((part) => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text };
      case 'reasoning':
        // Another upstream's sealed reasoning means nothing to an Anthropic client: only its summary shows.
        if (part.origin === 'openai') return part.text ? { type: 'thinking', thinking: part.text, signature: '' } : [];
        return part.redactedData && !part.text
          ? { type: 'redacted_thinking', data: part.redactedData }
          : { type: 'thinking', thinking: part.text, signature: part.signature ?? '' };
      case 'tool-call':
        return { type: 'tool_use', id: part.id, name: part.name, input: parseToolInput(part.arguments) };
    }
  });
  return {
    id: newId('msg_'),
    type: 'message',
    role: 'assistant',
    model: context.model,
    content,
    stop_reason: anthropicStopReason(reply.finishReason),
    stop_sequence: null,
    usage: anthropicUsage(reply.usage),
    svc_meta: context.finish(reply.usage),
  };
}
