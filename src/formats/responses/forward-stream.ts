import type { ForwardedFrame, WireFrame } from '../../core/forwarded.js';
import type { EncodeContext } from '../client-format.js';
import { frameText } from '../shared/forwarded.js';
import { newId } from '../shared/ids.js';
import { memberSpans, pathSpan, replaceSpans, withMember } from '../../core/json-members.js';
import { sse } from '../shared/sse.js';
import type { ResponsesOptions } from './decode-request.js';
import { responseObject } from './response-object.js';

/**
 * An OpenAI Responses upstream's events, as it sent them, for a Responses client: the lifecycle
 * events (`response.created`, `.in_progress`, `.completed`, `.incomplete`, which carry the whole
 * `response` object) with the model the client asked for, svc_meta in the terminal event's
 * `response` as encodeResponsesStream puts it, every other event untouched. An upstream failure
 * ends the stream with `response.failed` as the translated stream writes it, continuing the
 * upstream's response id and sequence numbers.
 * https://platform.openai.com/docs/api-reference/responses-streaming
 */
export function forwardResponsesStream(context: EncodeContext<ResponsesOptions>): (batch: ForwardedFrame[]) => string {
  const model = JSON.stringify(context.model);
  /** The last frame written: where the upstream's response id and sequence number are read if it fails. */
  let responseId: string | undefined;
  let last: WireFrame | undefined;
  return (batch) => {
    let out = '';
    for (const { frame, note } of batch) {
      if (note.error) {
        out += failedEvent(context, responseId, last, note.error);
        break;
      }
      if (!frame) continue;
      last = frame;
      const responseSpan = isLifecycle(note.type ?? stringAt(frame.data, 'type')) ? pathSpan(frame.data, ['response']) : undefined;
      if (!responseSpan) {
        out += frameText(frame);
        continue;
      }
      let response = frame.data.slice(responseSpan.start, responseSpan.end);
      responseId ??= stringAt(response, 'id');
      response = withMember(response, 'model', model);
      if (note.end) response = withMember(response, 'svc_meta', JSON.stringify(context.svcMeta()));
      out += frameText(frame, replaceSpans(frame.data, [responseSpan], response));
    }
    return out;
  };
}

/** `response.<status>`: the events that carry the response object (item and part events have more dots). The tap's note gives the type; a frame without one is read here. */
function isLifecycle(type: string | undefined): boolean {
  return type !== undefined && type.startsWith('response.') && type.indexOf('.', 9) === -1;
}

/** A top-level string member's value, or undefined. */
function stringAt(object: string, key: string): string | undefined {
  const span = memberSpans(object, key, undefined, true)[0];
  return span && object.charCodeAt(span.start) === 34 ? (JSON.parse(object.slice(span.start, span.end)) as string) : undefined;
}

/** The translated stream's `response.failed`, numbered after the upstream's last event. */
function failedEvent(context: EncodeContext<ResponsesOptions>, responseId: string | undefined, last: WireFrame | undefined, error: { code?: string; message: string }): string {
  const span = last ? memberSpans(last.data, 'sequence_number', undefined, true)[0] : undefined;
  const previous = span ? Number(last!.data.slice(span.start, span.end)) : -1;
  const response = responseObject(responseId ?? newId('resp_'), context, 'failed', [], undefined, undefined, { code: error.code ?? 'server_error', message: error.message });
  return sse({ type: 'response.failed', sequence_number: Number.isInteger(previous) ? previous + 1 : 0, response }, 'response.failed');
}
