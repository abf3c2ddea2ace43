import { RouterError } from '../../core/errors.js';
import type { SseFrame } from '../http/sse-decoder.js';
import { decodeEventStream, type EventStreamMessage } from './event-stream.js';

/**
 * InvokeModelWithResponseStream's messages as the SSE frames Anthropic's stream decoder reads
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html):
 * a `chunk` event's payload is `{"bytes": BASE64}`, the base64 of one Anthropic stream event as
 * JSON. An exception message (`:message-type: exception`) becomes an Anthropic error event, so the
 * stream fails with AWS's words, as an Anthropic error would.
 */
export async function* bedrockFrames(backend: string, body: AsyncIterable<Uint8Array>): AsyncGenerator<SseFrame[]> {
  for await (const messages of decodeEventStream(backend, body)) {
    const frames = messages.map((message) => frameOf(backend, message)).filter((frame): frame is SseFrame => frame !== undefined);
    if (frames.length) yield frames;
  }
}

/** AWS's stream exceptions as the Anthropic error type that says the same (503 for overload and throttling). */
const ERROR_TYPES: Record<string, string> = {
  throttlingException: 'overloaded_error',
  serviceUnavailableException: 'overloaded_error',
  validationException: 'invalid_request_error',
};

function frameOf(backend: string, message: EventStreamMessage): SseFrame | undefined {
  const kind = message.headers[':message-type'];
  if (kind === 'exception' || kind === 'error') {
    const type = String(message.headers[':exception-type'] ?? message.headers[':error-code'] ?? 'error');
    const text = exceptionMessageOf(message.payload) ?? String(message.headers[':error-message'] ?? type);
    return { event: 'error', data: JSON.stringify({ type: 'error', error: { type: Object.hasOwn(ERROR_TYPES, type) ? ERROR_TYPES[type] : 'api_error', message: `${type}: ${text}` } }) };
  }
  if (message.headers[':event-type'] !== 'chunk') return undefined; // future event types, as SSE's unknown events
  let bytes: unknown;
  try {
    bytes = (JSON.parse(message.payload.toString('utf8')) as { bytes?: unknown }).bytes;
  } catch {
    throw new RouterError(502, 'upstream', `Backend '${backend}' sent a stream chunk that is not JSON.`);
  }
  if (typeof bytes !== 'string') throw new RouterError(502, 'upstream', `Backend '${backend}' sent a stream chunk without its bytes.`);
  const data = Buffer.from(bytes, 'base64').toString('utf8');
  let type: unknown;
  try {
    type = (JSON.parse(data) as { type?: unknown }).type;
  } catch {
    throw new RouterError(502, 'upstream', `Backend '${backend}' sent a stream chunk whose event is not JSON.`);
  }
  return { ...(typeof type === 'string' ? { event: type } : {}), data };
}

/** An exception message's words: its JSON `message`, else the payload as text. */
export function exceptionMessageOf(payload: Buffer): string | undefined {
  try {
    const body = JSON.parse(payload.toString('utf8')) as { message?: unknown; Message?: unknown };
    const text = body.message ?? body.Message;
    return typeof text === 'string' ? text : undefined;
  } catch {
    return payload.length ? payload.toString('utf8') : undefined;
  }
}
