import { allWarnings } from '../../core/warnings.js';
import type { ForwardedFrame } from '../../core/forwarded.js';
import { anthropicErrorBody } from '../anthropic-error.js';
import type { EncodeContext } from '../client-format.js';
import { frameText } from '../shared/forwarded.js';
import { memberSpans, pathSpan, replaceSpans, withMember } from '../../core/json-members.js';
import { sse } from '../shared/sse.js';
import type { MessagesOptions } from './decode-request.js';

/**
 * An Anthropic upstream's events, as it sent them, for a Messages client: message_start with the
 * model the client asked for, message_delta with `svc_meta: { warnings }` when the request has
 * warnings (as encodeMessagesStream writes it), every other event untouched, message_stop last.
 */
export function forwardMessagesStream(context: EncodeContext<MessagesOptions>): (batch: ForwardedFrame[]) => string {
  const model = JSON.stringify(context.model);
  const warnings = allWarnings(context.request);
  return (batch) => {
    let out = '';
    for (const { frame, note } of batch) {
      if (note.error) {
        out += sse(anthropicErrorBody(note.error, context.requestId), 'error');
        break;
      }
      if (!frame) continue;
      const name = frame.event ?? typeOf(frame.data);
      if (name === 'message_start') {
        const span = pathSpan(frame.data, ['message', 'model']);
        out += frameText(frame, span ? replaceSpans(frame.data, [span], model) : frame.data);
      } else if (name === 'message_delta' && warnings) {
        out += frameText(frame, withMember(frame.data, 'svc_meta', JSON.stringify({ warnings })));
      } else {
        out += frameText(frame);
      }
    }
    return out;
  };
}

/** The event's `type`, for an upstream that left out the `event:` line. */
function typeOf(data: string): string | undefined {
  const span = memberSpans(data, 'type', undefined, true)[0];
  return span && data.charCodeAt(span.start) === 34 ? data.slice(span.start + 1, span.end - 1) : undefined;
}
