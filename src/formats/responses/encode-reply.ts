import type { Reply } from '../../core/reply.js';
import type { EncodeContext } from '../client-format.js';
import { newId } from '../shared/ids.js';
import type { ResponsesOptions } from './decode-request.js';
import { finishedReasoningItem, messageItem, refusalItem, textAnnotations, toolCallItem, webSearchCallItem } from './output-items.js';
import { refusalText } from '../shared/refusal.js';
import { responseObject, responsesStatus } from './response-object.js';
import { withReplyWarnings } from '../shared/warnings.js';

/** A `response` body with its output items, plus svc_meta. */
export function encodeResponsesReply(reply: Reply, context: EncodeContext<ResponsesOptions>) {
  const output: unknown[] = reply.content.map((part) => {
    switch (part.type) {
      case 'text':
        return messageItem(part.text, undefined, undefined, textAnnotations(part));
      case 'web-search':
        return webSearchCallItem(part, context.options);
      case 'reasoning':
        return finishedReasoningItem(part.writer || !context.upstreamModel ? part : { ...part, writer: context.upstreamModel }, context.options, context.secret);
      case 'tool-call':
        return toolCallItem(part, context.options);
    }
  });
  // A model that declined says why in a refusal content part (https://platform.openai.com/docs/guides/safety-checks).
  const refusal = refusalText(reply.finish);
  if (refusal !== undefined) output.push(refusalItem(refusal));
  const { status, incompleteReason } = responsesStatus(reply.finishReason);
  const meta = withReplyWarnings(context.svcMeta(), reply.warnings);
  return responseObject(newId('resp_'), context, status, output, reply.usage, meta, undefined, incompleteReason, reply.finish);
}
