import type { ForwardedFrame } from '../../core/forwarded.js';
import type { EncodeContext } from '../client-format.js';
import { openaiErrorBody } from '../openai-error.js';
import { forwardedJsonReply, frameText } from '../shared/forwarded.js';
import { newId } from '../shared/ids.js';
import { FirstMemberRewriter, withMember } from '../../core/json-members.js';
import { sse } from '../shared/sse.js';
import type { ChatOptions } from './decode-request.js';
import { chatUsage } from './encode-usage.js';

/**
 * An OpenAI Chat upstream's chunks, as it sent them, for a Chat client: each with the model the
 * client asked for, svc_meta on the last chunk before `[DONE]` as encodeChatStream puts it, and
 * the usage chunk only when the client asked for it (the router always asks the upstream for
 * usage; stream_options.include_usage is the client's choice:
 * https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options).
 * Without it, the finish chunk is held until usage arrives and carries svc_meta.
 */
export function forwardChatStream(context: EncodeContext<ChatOptions>): (batch: ForwardedFrame[]) => string {
  const model = new FirstMemberRewriter('model', JSON.stringify(context.model));
  const { includeUsage } = context.options;
  /** The latest finish chunk, rewritten, while the client is not to see the usage chunk that follows. */
  let held: string | undefined;
  return (batch) => {
    let out = '';
    for (const { frame, note } of batch) {
      if (note.error) {
        if (held !== undefined) out += `data: ${held}\n\n`;
        out += sse(openaiErrorBody(note.error));
        break;
      }
      let data = frame && frame.data !== '[DONE]' ? model.rewrite(frame.data) : undefined;
      if (data !== undefined) {
        if (!includeUsage && note.usageOnly) data = undefined;
        else if (!includeUsage && note.finish) {
          if (held !== undefined) out += `data: ${held}\n\n`;
          held = data;
          data = undefined;
        }
      }
      if (!note.end) {
        if (data !== undefined) out += frameText(frame!, data);
        continue;
      }
      // The last chunk: svc_meta on the usage chunk the client asked for, else on the finish chunk.
      const meta = JSON.stringify(context.svcMeta());
      if (includeUsage && data !== undefined && note.usage) out += `data: ${withMember(data, 'svc_meta', meta)}\n\n`;
      else {
        if (data !== undefined) out += frameText(frame!, data);
        out += `data: ${held !== undefined ? withMember(held, 'svc_meta', meta) : closingChunk(context)}\n\n`;
      }
      out += 'data: [DONE]\n\n';
    }
    return out;
  };
}

/** For an upstream that ended without the chunk svc_meta rides on: a chunk of the router's own, as encodeChatStream writes it. */
function closingChunk(context: EncodeContext<ChatOptions>): string {
  const meta = context.svcMeta();
  const usage = context.options.includeUsage ? { usage: chatUsage({ inputTokens: meta.usage.input_tokens, outputTokens: meta.usage.output_tokens }) } : {};
  return forwardedJsonReply(JSON.stringify({ id: newId('chatcmpl-'), object: 'chat.completion.chunk', created: context.created, choices: [], ...usage }), context);
}
