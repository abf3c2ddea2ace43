/**
 * The fake upstream's answers, encoded once: exact OpenAI Chat, OpenAI Responses and Anthropic
 * Messages wire bytes, so serving a request costs a write and nothing else.
 */

export type UpstreamFormat = 'openai-chat' | 'anthropic' | 'openai-responses';

/** A stream split where a slow upstream pauses: head at once, one piece per tick, tail at the end. */
export interface StreamReply {
  head: Buffer;
  pieces: Buffer[];
  tail: Buffer;
}

export interface Replies {
  json: Buffer;
  stream: Buffer;
  slow: StreamReply;
}

export const FAST_STREAM_CHUNKS = 20;
export const SLOW_STREAM_CHUNKS = 30;

const MODEL = 'm';
const CREATED = 1_700_000_000;
const INPUT_TOKENS = 12;

/** `count` short text pieces, like a tokenizer's output. */
function textPieces(count: number): string[] {
  const words = ['The', ' quick', ' brown', ' fox', ' jumps', ' over', ' the', ' lazy', ' dog', '.'];
  return Array.from({ length: count }, (_, i) => words[i % words.length]!);
}

const sse = (data: unknown, event?: string) => Buffer.from(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);

function chatUsage(outputTokens: number) {
  return {
    prompt_tokens: INPUT_TOKENS,
    completion_tokens: outputTokens,
    total_tokens: INPUT_TOKENS + outputTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function chatJson(text: string, outputTokens: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      id: 'chatcmpl-bench0000000000000000000001',
      object: 'chat.completion',
      created: CREATED,
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
      usage: chatUsage(outputTokens),
      service_tier: 'default',
      system_fingerprint: 'fp_bench',
    }),
  );
}

/** The memory test's answers: one 50 MiB streamed answer, and a stream whose one event is 16 MiB. */
export const BIG_ANSWER_BYTES = 50 * 1024 * 1024;
export const BIG_EVENT_BYTES = 16 * 1024 * 1024;
const BIG_PIECE = `${'x'.repeat(4095)} `;

/** 50 MiB of text in 4 KiB deltas (12,800 chunks). */
export const bigAnswerStream = (): StreamReply => chatStream(Array.from({ length: BIG_ANSWER_BYTES / BIG_PIECE.length }, () => BIG_PIECE));

/** One delta whose `data:` line is just under 16 MiB (the JSON around the text is under 512 bytes). */
export const bigEventStream = (): StreamReply => chatStream([`${'y'.repeat(BIG_EVENT_BYTES - 512)}`]);

/** A Chat Completions stream as sent when the request asks for `stream_options.include_usage`. */
function chatStream(pieces: string[]): StreamReply {
  const base = { id: 'chatcmpl-bench0000000000000000000002', object: 'chat.completion.chunk', created: CREATED, model: MODEL, service_tier: 'default', system_fingerprint: 'fp_bench' };
  const chunk = (delta: object, finish: string | null) => sse({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null });
  return {
    head: chunk({ role: 'assistant', content: '', refusal: null }, null),
    pieces: pieces.map((piece) => chunk({ content: piece }, null)),
    tail: Buffer.concat([chunk({}, 'stop'), sse({ ...base, choices: [], usage: chatUsage(pieces.length) }), Buffer.from('data: [DONE]\n\n')]),
  };
}

function anthropicUsage(outputTokens: number) {
  return { input_tokens: INPUT_TOKENS, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: outputTokens, service_tier: 'standard' };
}

function anthropicJson(text: string, outputTokens: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      id: 'msg_01Bench000000000000000001',
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: anthropicUsage(outputTokens),
    }),
  );
}

/** A Messages stream in the API's event order, with the ping after the first content_block_start. */
function anthropicStream(pieces: string[]): StreamReply {
  const message = { id: 'msg_01Bench000000000000000002', type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage: anthropicUsage(1) };
  return {
    head: Buffer.concat([
      sse({ type: 'message_start', message }, 'message_start'),
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
      Buffer.from('event: ping\ndata: {"type": "ping"}\n\n'),
    ]),
    pieces: pieces.map((text) => sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta')),
    tail: Buffer.concat([
      sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
      sse({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: pieces.length } }, 'message_delta'),
      sse({ type: 'message_stop' }, 'message_stop'),
    ]),
  };
}

function responsesUsage(outputTokens: number) {
  return {
    input_tokens: INPUT_TOKENS,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: INPUT_TOKENS + outputTokens,
  };
}

const RESPONSE_ID = 'resp_bench0000000000000000000001';
const MESSAGE_ID = 'msg_bench0000000000000000000001';

/** A Response object (OpenAI API reference, "The response object"), in progress or completed with one message. */
function responseObject(status: 'in_progress' | 'completed', text: string | null, outputTokens: number) {
  const done = status === 'completed';
  return {
    id: RESPONSE_ID,
    object: 'response',
    created_at: CREATED,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: 64,
    model: MODEL,
    output: done ? [responseMessage(text ?? '')] : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: done ? responsesUsage(outputTokens) : null,
    metadata: {},
  };
}

function responseMessage(text: string) {
  return { id: MESSAGE_ID, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] };
}

function responsesJson(text: string, outputTokens: number): Buffer {
  return Buffer.from(JSON.stringify(responseObject('completed', text, outputTokens)));
}

/**
 * A Responses stream in the documented event order (OpenAI API reference, "Streaming events"):
 * created, in_progress, output_item.added, content_part.added, output_text.delta…, then
 * output_text.done, content_part.done, output_item.done and the terminal response.completed;
 * `sequence_number` counts every event from 0.
 */
function responsesStream(pieces: string[]): StreamReply {
  let sequence = 0;
  const event = (data: { type: string } & Record<string, unknown>) => sse({ ...data, sequence_number: sequence++ }, data.type);
  const text = pieces.join('');
  const where = { item_id: MESSAGE_ID, output_index: 0, content_index: 0 };
  const opening = responseObject('in_progress', null, 0);
  const head = Buffer.concat([
    event({ type: 'response.created', response: opening }),
    event({ type: 'response.in_progress', response: opening }),
    event({ type: 'response.output_item.added', output_index: 0, item: { id: MESSAGE_ID, type: 'message', status: 'in_progress', role: 'assistant', content: [] } }),
    event({ type: 'response.content_part.added', ...where, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } }),
  ]);
  const deltas = pieces.map((delta) => event({ type: 'response.output_text.delta', ...where, delta, logprobs: [] }));
  const tail = Buffer.concat([
    event({ type: 'response.output_text.done', ...where, text, logprobs: [] }),
    event({ type: 'response.content_part.done', ...where, part: { type: 'output_text', text, annotations: [], logprobs: [] } }),
    event({ type: 'response.output_item.done', output_index: 0, item: responseMessage(text) }),
    event({ type: 'response.completed', response: responseObject('completed', text, pieces.length) }),
  ]);
  return { head, pieces: deltas, tail };
}

const whole = (reply: StreamReply) => Buffer.concat([reply.head, ...reply.pieces, reply.tail]);

export function buildReplies(format: UpstreamFormat): Replies {
  const fast = textPieces(FAST_STREAM_CHUNKS);
  const text = fast.join('');
  if (format === 'openai-chat') {
    return { json: chatJson(text, fast.length), stream: whole(chatStream(fast)), slow: chatStream(textPieces(SLOW_STREAM_CHUNKS)) };
  }
  if (format === 'openai-responses') {
    return { json: responsesJson(text, fast.length), stream: whole(responsesStream(fast)), slow: responsesStream(textPieces(SLOW_STREAM_CHUNKS)) };
  }
  return { json: anthropicJson(text, fast.length), stream: whole(anthropicStream(fast)), slow: anthropicStream(textPieces(SLOW_STREAM_CHUNKS)) };
}
