import { FirstMemberRewriter, withMember, withMembers } from '../../core/json-members.js';
import type { ForwardedFrame } from '../../core/forwarded.js';
import { usageMetadataOf } from '../../wire/gemini/usage-metadata.js';
import type { EncodeContext } from '../client-format.js';
import type { GeminiOptions } from './decode-request.js';
import { chunkFraming } from './encode-stream.js';
import { geminiErrorBody } from './error-body.js';

/** The members a forwarded reply gets: the model the client asked for, where Gemini names the model that answered, and svc_meta last. */
const REPLY_MEMBERS = ['modelVersion', 'svc_meta'];

/** A Gemini upstream's GenerateContentResponse, as it came, with `modelVersion` the client's model and svc_meta. */
export function forwardedGeminiReply(text: string, context: EncodeContext<GeminiOptions>): string {
  return withMembers(text, REPLY_MEMBERS, [JSON.stringify(context.model), JSON.stringify(context.svcMeta())]);
}

/**
 * A Gemini upstream's stream chunks, as it sent them, for a Gemini client: each with `modelVersion`
 * the model the client asked for, the last (the one with the finishReason) with svc_meta, framed
 * as the client asked (server-sent events, or the JSON array); an upstream error ends it as
 * Google's error object, as encodeGeminiStream writes it.
 */
export function forwardGeminiStream(context: EncodeContext<GeminiOptions>): (batch: ForwardedFrame[]) => string {
  const framing = chunkFraming(context.options.jsonArray);
  const model = new FirstMemberRewriter('modelVersion', JSON.stringify(context.model));
  return (batch) => {
    let out = '';
    for (const { frame, note } of batch) {
      if (note.error) {
        out += framing.last(JSON.stringify(geminiErrorBody(note.error, context.requestId)));
        break;
      }
      if (!note.end) {
        if (frame) out += framing.chunk(model.rewrite(frame.data));
        continue;
      }
      const meta = JSON.stringify(context.svcMeta());
      if (frame) out += framing.last(withMember(model.rewrite(frame.data), 'svc_meta', meta));
      else {
        // The upstream's body ended well without a last chunk of its own: one of the router's carries svc_meta.
        const usage = context.svcMeta().usage;
        const usageMetadata = usageMetadataOf({ inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
        out += framing.last(JSON.stringify({ usageMetadata, modelVersion: context.model, responseId: context.requestId, svc_meta: JSON.parse(meta) as unknown }));
      }
    }
    return out;
  };
}
