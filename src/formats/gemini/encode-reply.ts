import type { Reply, ReplyPart } from '../../core/reply.js';
import type { WebSearchPart } from '../../core/web-search.js';
import { geminiFinishReason } from '../../wire/gemini/finish-reason.js';
import { groundingMetadataOf } from '../../wire/gemini/grounding.js';
import type { GeminiPart } from '../../wire/gemini/types.js';
import { usageMetadataOf } from '../../wire/gemini/usage-metadata.js';
import type { EncodeContext } from '../client-format.js';
import { withReplyWarnings } from '../shared/warnings.js';
import type { GeminiOptions } from './decode-request.js';
import { PartWriter } from './encode-parts.js';

/**
 * A GenerateContentResponse (https://ai.google.dev/api/generate-content#generatecontentresponse):
 * one candidate with the answer's parts, its finishReason and the grounding of any web search,
 * usageMetadata, the model the client asked for as `modelVersion`, and svc_meta, which Google's
 * clients ignore, as the last member.
 */
export function encodeGeminiReply(reply: Reply, context: EncodeContext<GeminiOptions>) {
  const writer = new PartWriter(context.options.includeThoughts, context.secret);
  const parts = reply.content.flatMap((part) => partOf(part, writer));
  parts.push(...writer.flush());
  const searches = reply.content.filter((part): part is WebSearchPart => part.type === 'web-search');
  const grounding = groundingMetadataOf(searches, reply.content.filter((part) => part.type === 'text'));
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        finishReason: geminiFinishReason(reply.finishReason, reply.finish?.raw),
        index: 0,
        ...(grounding ? { groundingMetadata: grounding } : {}),
      },
    ],
    usageMetadata: usageMetadataOf(reply.usage),
    modelVersion: context.model,
    responseId: reply.id ?? context.requestId,
    svc_meta: withReplyWarnings(context.svcMeta(), reply.warnings),
  };
}

function partOf(part: ReplyPart, writer: PartWriter): GeminiPart[] {
  switch (part.type) {
    case 'reasoning':
      return writer.reasoning(part.text, part.providerMetadata);
    case 'text':
      return writer.text(part.text, part.providerMetadata);
    case 'tool-call':
      return writer.call(part.id, part.name, part.arguments, part.providerMetadata);
    case 'web-search':
      // Said in the candidate's groundingMetadata.
      return [];
  }
}
