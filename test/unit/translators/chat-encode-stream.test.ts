import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../src/core/errors.js';
import type { StreamEvent } from '../../../src/core/stream-events.js';
import { encodeChatStream } from '../../../src/formats/chat/encode-stream.js';
import { collect, encodeContext, finishing, fixtureText, framesOf, normaliseIds, replay } from './support.js';

const golden = (name: string) => fixtureText(`expected/chat-client/${name}.sse`);

async function encode(events: StreamEvent[], includeUsage: boolean) {
  const context = encodeContext({ includeUsage });
  const chunks = await collect(encodeChatStream(finishing(replay(events), context), context));
  return { chunks, text: chunks.join(''), context };
}

/** Reasoning, text and two interleaved tool calls, as a Chat backend decodes them. */
const toolEvents: StreamEvent[] = [
  { type: 'start', id: 'upstream-id', usage: { inputTokens: 3, outputTokens: 0 } },
  { type: 'reasoning-start' },
  { type: 'reasoning-delta', text: 'Think' },
  { type: 'reasoning-end' },
  { type: 'text-start' },
  { type: 'text-delta', text: 'Hi' },
  { type: 'text-delta', text: '' },
  { type: 'text-end' },
  { type: 'tool-call-start', id: 'call_a', name: 'read_file' },
  { type: 'tool-call-start', id: 'call_b', name: 'list_dir' },
  { type: 'tool-call-delta', id: 'call_b', argumentsDelta: '{"dir":' },
  { type: 'tool-call-delta', id: 'call_a', argumentsDelta: '{"path":"a.ts"}' },
  { type: 'tool-call-delta', id: 'call_b', argumentsDelta: '"src"}' },
  { type: 'tool-call-end', id: 'call_a' },
  { type: 'tool-call-end', id: 'call_b' },
  { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 10, outputTokens: 5 } },
];

const textEvents: StreamEvent[] = [
  { type: 'start', usage: { inputTokens: 3, outputTokens: 0 } },
  { type: 'text-start' },
  { type: 'text-delta', text: 'Hello' },
  { type: 'text-delta', text: ' 🌍' },
  { type: 'text-end' },
  { type: 'finish', reason: 'stop', usage: { inputTokens: 12, outputTokens: 4, cachedInputTokens: 8 } },
];

describe('chat encodeChatStream', () => {
  it('writes role, reasoning, content and tool_calls chunks with a stable index per call id', async () => {
    const { text } = await encode(toolEvents, false);
    expect(normaliseIds(text)).toBe(golden('tools-no-usage'));
  });

  it('puts svc_meta on the finish chunk and sends no usage chunk unless asked', async () => {
    const { text, context } = await encode(toolEvents, false);
    const frames = framesOf(text);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const last = JSON.parse(frames.at(-2)!.slice('data: '.length));
    expect(last.choices[0].finish_reason).toBe('tool_calls');
    expect(last).not.toHaveProperty('usage');
    expect(last.svc_meta.usage).toEqual({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
    expect(frames.filter((frame) => frame.includes('svc_meta'))).toHaveLength(1);
    expect(context.finished).toEqual([{ inputTokens: 10, outputTokens: 5 }]);
  });

  it('sends a usage chunk with empty choices, carrying svc_meta, when include_usage was asked', async () => {
    const { text, context } = await encode(textEvents, true);
    expect(normaliseIds(text)).toBe(golden('text-with-usage'));
    expect(context.finished).toHaveLength(1);
  });

  it('uses one id for every chunk of the stream', async () => {
    const { text } = await encode(toolEvents, true);
    const ids = new Set(
      framesOf(text)
        .filter((frame) => frame !== 'data: [DONE]')
        .map((frame) => (JSON.parse(frame.slice(6)) as { id: string }).id),
    );
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^chatcmpl-[0-9a-f]{24}$/);
  });

  it('ends with an OpenAI error object and no [DONE] when an error arrives mid-stream', async () => {
    const { text, context } = await encode(
      [
        { type: 'start' },
        { type: 'text-start' },
        { type: 'text-delta', text: 'Hal' },
        { type: 'error', error: new RouterError(502, 'upstream', "Backend 'oai' failed mid-stream: boom") },
        { type: 'text-delta', text: 'never sent' },
      ],
      true,
    );
    expect(normaliseIds(text)).toBe(golden('error-mid-stream'));
    expect(context.finished).toEqual([]);
  });

  it('sends only the error, without a role chunk, when the stream fails before anything else', async () => {
    const { text } = await encode([{ type: 'error', error: new RouterError(503, 'overloaded', 'busy') }], false);
    expect(text).toBe('data: {"error":{"message":"busy","type":"server_error","param":null,"code":null}}\n\n');
  });
});
