import type { SseFrame } from './sse-decoder.js';

/**
 * A stream's error event written in a shape other than its format's own. Anthropic's is `event:
 * error` with `{ "type": "error", "error": { "type", "message" } }`; OpenAI Responses' is `{ "type":
 * "error", "code", "message" }`. Servers that speak these formats may write their errors their own
 * way: llama.cpp's sends `event: error` with `{ "code", "message", "type": "server_error" }` on a
 * Messages stream, and a bare `{ "error": { "code", "message", "type" } }` (Chat's in-stream
 * error) on a Responses stream. Either is the upstream's error, with its words, not an event to
 * skip: read as one, the stream fails with the message, redacted as every upstream error is.
 */
export interface ForeignError {
  message?: string;
  type?: string;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The error in a parsed frame that is one but not in the format's own shape (`type: "error"`), or undefined. */
export function foreignErrorOf(frame: SseFrame, parsed: unknown): ForeignError | undefined {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const body = parsed as Record<string, unknown>;
  if (body.type === 'error') return undefined;
  const nested = body.error !== null && typeof body.error === 'object' && !Array.isArray(body.error) ? (body.error as Record<string, unknown>) : undefined;
  if (nested && body.type === undefined) return { message: text(nested.message), type: text(nested.type) };
  if (frame.event === 'error') return { message: text(body.message) ?? text(nested?.message), type: text(body.type) };
  return undefined;
}
