import type { SseFrame } from '../http/sse-decoder.js';
import { exceptionMessageOf } from './bedrock-frames.js';
import { decodeEventStream, type EventStreamMessage } from './event-stream.js';

/** The event name an exception message becomes, its payload `{"type", "message"}`. */
export const CONVERSE_EXCEPTION = 'exception';

/**
 * ConverseStream's event-stream messages as frames: the event type (messageStart,
 * contentBlockDelta …) as the frame's event and the JSON payload, that event's members, as its data
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html).
 * An exception message (`:message-type: exception`) becomes an `exception` frame with AWS's type and words.
 */
export async function* converseFrames(backend: string, body: AsyncIterable<Uint8Array>): AsyncGenerator<SseFrame[]> {
  for await (const messages of decodeEventStream(backend, body)) {
    const frames = messages.map(frameOf).filter((frame): frame is SseFrame => frame !== undefined);
    if (frames.length) yield frames;
  }
}

function frameOf(message: EventStreamMessage): SseFrame | undefined {
  const kind = message.headers[':message-type'];
  if (kind === 'exception' || kind === 'error') {
    const type = String(message.headers[':exception-type'] ?? message.headers[':error-code'] ?? 'error');
    const text = exceptionMessageOf(message.payload) ?? String(message.headers[':error-message'] ?? type);
    return { event: CONVERSE_EXCEPTION, data: JSON.stringify({ type, message: text }) };
  }
  const type = message.headers[':event-type'];
  if (typeof type !== 'string') return undefined;
  return { event: type, data: message.payload.toString('utf8') };
}
