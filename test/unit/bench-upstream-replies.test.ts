import { describe, expect, it } from 'vitest';
import { buildReplies, FAST_STREAM_CHUNKS, SLOW_STREAM_CHUNKS, type StreamReply } from '../../bench/upstream-replies.js';

interface Event {
  name: string;
  data: { type: string; sequence_number: number } & Record<string, any>;
}

function events(bytes: Buffer): Event[] {
  const text = bytes.toString('utf8');
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      const lines = block.split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^event: /);
      expect(lines[1]).toMatch(/^data: /);
      return { name: lines[0]!.slice('event: '.length), data: JSON.parse(lines[1]!.slice('data: '.length)) };
    });
}

/** The Responses stream grammar (OpenAI API reference, "Streaming events") for one text message. */
function expectOneTextMessage(list: Event[], deltas: number): void {
  const types = list.map((event) => event.data.type);
  expect(types).toEqual([
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
    ...Array(deltas).fill('response.output_text.delta'),
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.completed',
  ]);
  for (const event of list) expect(event.name).toBe(event.data.type);
  expect(list.map((event) => event.data.sequence_number)).toEqual(list.map((_, i) => i));
  const text = list.filter((event) => event.data.type === 'response.output_text.delta').map((event) => event.data.delta as string).join('');
  const item = list.find((event) => event.data.type === 'response.output_item.added')!.data.item;
  for (const event of list.filter((e) => 'item_id' in e.data)) expect(event.data.item_id).toBe(item.id);
  expect(list.find((event) => event.data.type === 'response.output_text.done')!.data.text).toBe(text);
  const completed = list.at(-1)!.data.response;
  expect(completed.status).toBe('completed');
  expect(completed.output).toEqual([expect.objectContaining({ id: item.id, type: 'message', role: 'assistant', content: [expect.objectContaining({ type: 'output_text', text })] })]);
  expect(completed.usage.output_tokens).toBe(deltas);
  expect(completed.usage.total_tokens).toBe(completed.usage.input_tokens + deltas);
  expect(list[0]!.data.response).toMatchObject({ id: completed.id, status: 'in_progress', output: [], usage: null });
}

const whole = (reply: StreamReply) => Buffer.concat([reply.head, ...reply.pieces, reply.tail]);

describe('the fake upstream’s OpenAI Responses replies', () => {
  const replies = buildReplies('openai-responses');

  it('stream one text message in the documented event order, numbered from 0, ending at response.completed', () => {
    expectOneTextMessage(events(replies.stream), FAST_STREAM_CHUNKS);
  });

  it('split the slow stream so head, one delta per piece and tail make the same grammar', () => {
    expect(replies.slow.pieces).toHaveLength(SLOW_STREAM_CHUNKS);
    for (const piece of replies.slow.pieces) expect(events(piece).map((event) => event.data.type)).toEqual(['response.output_text.delta']);
    expectOneTextMessage(events(whole(replies.slow)), SLOW_STREAM_CHUNKS);
  });

  it('answer JSON with the same message the stream completes with', () => {
    const json = JSON.parse(replies.json.toString('utf8'));
    const completed = events(replies.stream).at(-1)!.data.response;
    expect(json).toEqual(completed);
    expect(json.object).toBe('response');
  });
});
