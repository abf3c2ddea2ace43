import type { Reply } from '../../core/reply.js';
import type { EncodeContext } from '../client-format.js';
import { newId } from '../shared/ids.js';
import type { ChatOptions } from './decode-request.js';
import { chatUsage } from './encode-usage.js';
import { chatFinishReason } from './map-finish-reason.js';
import { refusalText } from '../shared/refusal.js';
import { withReplyWarnings, withUnshownDiagnostics } from '../shared/warnings.js';
import type { WebSearchPart } from '../../core/web-search.js';
import { chatUrlCitation, unshownSearchesWarning } from '../shared/citations.js';

/** A Chat Completions body (`chat.completion`) plus svc_meta. */
export function encodeChatReply(reply: Reply, context: EncodeContext<ChatOptions>) {
  let text: string | null = null;
  let reasoning: string | undefined;
  const toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> = [];
  // Web search citations as url_citation annotations over the message's content:
  // https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat
  const annotations: Array<ReturnType<typeof chatUrlCitation>> = [];
  const searches: WebSearchPart[] = [];
  for (const part of reply.content) {
    if (part.type === 'text') {
      const start = text?.length ?? 0;
      text = (text ?? '') + part.text;
      for (const citation of part.citations ?? []) annotations.push(chatUrlCitation(citation, start, part.text.length));
    } else if (part.type === 'reasoning') reasoning = (reasoning ?? '') + part.text;
    else if (part.type === 'web-search') searches.push(part);
    else toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
  }
  const searchWarning = unshownSearchesWarning(searches);
  const warnings = withUnshownDiagnostics(searchWarning ? [...(reply.warnings ?? []), searchWarning] : reply.warnings, reply.finish);
  return {
    id: newId('chatcmpl-'),
    object: 'chat.completion',
    created: context.created,
    model: context.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text,
          // A model that declined says why here (https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices).
          refusal: refusalText(reply.finish) ?? null,
          // Only reasoning the client can read: none when the model's reasoning was omitted.
          ...(reasoning ? { reasoning_content: reasoning } : {}),
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          ...(annotations.length ? { annotations } : {}),
        },
        logprobs: null,
        finish_reason: chatFinishReason(reply.finishReason),
      },
    ],
    usage: chatUsage(reply.usage),
    svc_meta: withReplyWarnings(context.svcMeta(), warnings),
  };
}
