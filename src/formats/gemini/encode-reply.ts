import type { Reply, ReplyPart } from '../../core/reply.js';
import type { WebSearchPart } from '../../core/web-search.js';
import { geminiFinishReason } from '../../wire/gemini/finish-reason.js';
import { groundingMetadataOf } from '../../wire/gemini/grounding.js';
import type { GeminiPart } from '../../wire/gemini/types.js';
import { usageMetadataOf } from '../../wire/gemini/usage-metadata.js';
import type { EncodeContext } from '../client-format.js';
import { refusalText } from '../shared/refusal.js';
import { withReplyWarnings } from '../shared/warnings.js';
import type { GeminiOptions } from './decode-request.js';
import { PartWriter } from './encode-parts.js';

/**
 * A GenerateContentResponse (https://ai.google.dev/api/generate-content#generatecontentresponse):
 * one candidate with the answer's parts, its finishReason (a model's refusal as SAFETY, why it
 * declined in `finishMessage`) and the grounding of any web search,
 * usageMetadata, the model the client asked for as `modelVersion`, and svc_meta, which Google's
 * clients ignore, as the last member.
 */
export function encodeGeminiReply(reply: Reply, context: EncodeContext<GeminiOptions>) {
  const writer = new PartWriter(context.options.includeThoughts, context.secret, () => context.upstreamModel);
  const parts = reply.content.flatMap((part) => partOf(part, writer));
  parts.push(...writer.flush());
  const searches = reply.content.filter((part): part is WebSearchPart => part.type === 'web-search');
  const grounding = groundingMetadataOf(searches, reply.content.filter((part) => part.type === 'text'));
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        finishReason: geminiFinishReason(reply.finishReason, reply.finish?.raw),
        ...finishMessageOf(reply.finish),
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

/**
 * Why the model declined, where it did (Anthropic's `stop_details`), as the candidate's
 * `finishMessage`, the field Google's GenerateContentResponse gives a stop explained in words
 * (https://cloud.google.com/vertex-ai/docs/reference/rest/v1/GenerateContentResponse#Candidate).
 * The reason itself is SAFETY, Gemini's word for a model that stopped on a policy (finish-reason.ts).
 */
export function finishMessageOf(finish: Reply['finish']): { finishMessage?: string } {
  const text = refusalText(finish);
  return text === undefined ? {} : { finishMessage: text };
}

function partOf(part: ReplyPart, writer: PartWriter): GeminiPart[] {
  switch (part.type) {
    case 'reasoning':
      return writer.reasoning(part.text, part.providerMetadata, false, part.writer);
    case 'text':
      return writer.text(part.text, part.providerMetadata);
    case 'tool-call':
      return writer.call(part.id, part.name, part.arguments, part.providerMetadata);
    case 'web-search':
      // Said in the candidate's groundingMetadata.
      return [];
  }
}
