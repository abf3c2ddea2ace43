import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeConverseReply } from '../../../src/backends/bedrock/converse-decode-reply.js';
import { decodeConverseStream } from '../../../src/backends/bedrock/converse-decode-stream.js';
import { encodeConverseRequest } from '../../../src/backends/bedrock/converse-encode.js';
import { converseFrames } from '../../../src/backends/bedrock/converse-frames.js';
import { RouterError } from '../../../src/core/errors.js';
import type { CanonicalRequest, Message, ToolChoice } from '../../../src/core/request.js';
import type { StreamEvent } from '../../../src/core/stream-events.js';
import { converseProblem } from '../../fakes/bedrock-converse.js';
import { bedrockException, eventStreamMessage } from '../../fakes/event-stream-frames.js';
import { userRequest } from '../translators/support.js';

const event = (type: string, payload: object): Buffer => eventStreamMessage({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' }, JSON.stringify({ ...payload, p: 'abc' }));

async function* body(...messages: Buffer[]): AsyncGenerator<Buffer> {
  yield Buffer.concat(messages);
}

async function decode(...messages: Buffer[]): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const batch of decodeConverseStream('aws', converseFrames('aws', body(...messages)), userRequest())) out.push(...batch);
  return out;
}

const failure = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => undefined, (error: unknown) => error);

describe('ConverseStream decoding', () => {
  it('keeps a reasoning signature on the block end, and the encoder sends it back on the next turn', async () => {
    const events = await decode(
      event('messageStart', { role: 'assistant' }),
      event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Think.' } } }),
      event('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig-1' } } }),
      event('contentBlockStop', { contentBlockIndex: 0 }),
      event('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Hi.' } }),
      event('contentBlockStop', { contentBlockIndex: 1 }),
      event('messageStop', { stopReason: 'end_turn' }),
      event('metadata', { usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 }, metrics: { latencyMs: 1 } }),
    );
    expect(events.map((e) => e.type)).toEqual(['start', 'reasoning-start', 'reasoning-delta', 'reasoning-end', 'text-start', 'text-delta', 'text-end', 'finish']);
    const end = events.find((e) => e.type === 'reasoning-end')!;
    expect(end).toMatchObject({ providerMetadata: { bedrock: { signature: 'sig-1' } } });
    const request = userRequest('next', {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'Think.', providerMetadata: { bedrock: { signature: 'sig-1' } } }, { type: 'text', text: 'Hi.' }] },
        { role: 'user', content: [{ type: 'text', text: 'again' }] },
      ],
    });
    expect(encodeConverseRequest(request, 'deepseek.r1-v1:0').messages[1]!.content[0]).toEqual({ reasoningContent: { reasoningText: { text: 'Think.', signature: 'sig-1' } } });
  });

  it('assembles a tool call from its start, input pieces and stop', async () => {
    const events = await decode(
      event('contentBlockStart', { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather' } } }),
      event('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":' } } }),
      event('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '"Paris"}' } } }),
      event('contentBlockStop', { contentBlockIndex: 0 }),
      event('messageStop', { stopReason: 'tool_use' }),
      event('metadata', { usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14, cacheReadInputTokens: 6 } }),
    );
    const args = events.flatMap((e) => (e.type === 'tool-call-delta' ? [e.argumentsDelta] : [])).join('');
    expect(JSON.parse(args)).toEqual({ city: 'Paris' });
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool-calls', usage: { inputTokens: 16, outputTokens: 4, cachedInputTokens: 6 } });
  });

  it('names a guardrail stop as a content filter, keeping its raw reason, and a block it cannot relay in a warning', async () => {
    const events = await decode(
      event('contentBlockDelta', { contentBlockIndex: 0, delta: { citation: { title: 'x' } } }),
      event('messageStop', { stopReason: 'guardrail_intervened' }),
      event('metadata', { usage: { inputTokens: 1, outputTokens: 0, totalTokens: 1 } }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'content-filter', finish: { raw: 'guardrail_intervened' }, warnings: [expect.stringContaining("'citation'")] });
  });

  it('ends well after messageStop without metadata, and fails a stream cut off before messageStop', async () => {
    const ended = await decode(event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }), event('messageStop', { stopReason: 'max_tokens' }));
    expect(ended.at(-1)).toMatchObject({ type: 'finish', reason: 'length' });
    const cut = await failure(decode(event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } })));
    expect(cut).toBeInstanceOf(RouterError);
    expect((cut as RouterError).status).toBe(502);
  });

  it('answers a throttling exception as overload (503) and any other as the upstream failing (502), in AWS words', async () => {
    for (const [type, status] of [['throttlingException', 503], ['modelStreamErrorException', 502]] as const) {
      const error = await failure(decode(event('messageStart', { role: 'assistant' }), bedrockException(type, 'Too many requests.')));
      expect(error).toBeInstanceOf(RouterError);
      expect((error as RouterError).status).toBe(status);
      expect((error as Error).message).toContain(`${type}: Too many requests.`);
    }
  });
});

describe('Converse reply decoding', () => {
  it('reads text, tool use, reasoning and usage, and names a block it has no part for', () => {
    const reply = decodeConverseReply(
      'aws',
      {
        output: { message: { role: 'assistant', content: [{ reasoningContent: { redactedContent: 'AAEC' } }, { text: 'Hi.' }, { toolUse: { toolUseId: 't1', name: 'f', input: { a: 1 } } }, { citationsContent: {} }] } },
        stopReason: 'tool_use',
        usage: { inputTokens: 3, outputTokens: 2, totalTokens: 9, cacheWriteInputTokens: 4 },
      },
      userRequest(),
    );
    expect(reply.content).toEqual([
      { type: 'reasoning', text: '', providerMetadata: { bedrock: { redactedContent: 'AAEC' } } },
      { type: 'text', text: 'Hi.' },
      { type: 'tool-call', id: 't1', name: 'f', arguments: '{"a":1}' },
    ]);
    expect(reply.finishReason).toBe('tool-calls');
    expect(reply.usage).toMatchObject({ inputTokens: 7, outputTokens: 2, cacheWriteInputTokens: 4 });
    expect(reply.warnings).toEqual([expect.stringContaining("'citationsContent'")]);
  });
});

describe('Converse request encoding', () => {
  it('names what Converse cannot carry, and refuses a file it cannot be given', () => {
    const request = userRequest('hi', {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'f', arguments: '{}' }] },
        { role: 'tool', content: [{ type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: 'done' }] }] },
      ],
      tools: [{ name: 'f', parameters: { type: 'object' } }],
      toolChoice: 'none',
      parallelToolCalls: false,
      topK: 5,
      reasoningEffort: 'high',
      outputSchema: { name: 'answer', schema: { type: 'object' } },
    });
    encodeConverseRequest(request, 'amazon.nova-pro-v1:0');
    for (const name of ["tool_choice 'none'", 'parallel_tool_calls', 'top_k', 'reasoning effort', "response format (JSON schema 'answer')"]) {
      expect(request.backendWarnings).toEqual(expect.arrayContaining([expect.stringContaining(name)]));
    }
    const byUrl = userRequest('read this', { messages: [{ role: 'user', content: [{ type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf' }, filename: 'a.pdf' }] }] });
    const error = (() => {
      try {
        encodeConverseRequest(byUrl, 'amazon.nova-pro-v1:0');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(RouterError);
    expect((error as RouterError).status).toBe(400);
  });

  it("keeps tool_choice 'none' by offering no tools, and says earlier tool turns in words when no tools are offered", () => {
    const plain = userRequest('hi', { tools: [{ name: 'f', parameters: { type: 'object' } }], toolChoice: 'none' });
    expect(encodeConverseRequest(plain, 'mistral.mistral-large-2407-v1:0').toolConfig).toBeUndefined();
    expect(plain.backendWarnings).toBeUndefined();
    const replayed = userRequest('x', {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'f', arguments: '{"a":1}' }] },
        { role: 'tool', content: [{ type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: 'done' }] }] },
      ],
    });
    const body = encodeConverseRequest(replayed, 'mistral.mistral-large-2407-v1:0');
    expect(converseProblem(body)).toBeUndefined();
    expect(JSON.stringify(body.messages)).toContain('done');
    expect(replayed.backendWarnings).toEqual([expect.stringContaining('sent as text')]);
  });

  it('sends a document as a DocumentBlock whose name Converse accepts', () => {
    const request = userRequest('x', { messages: [{ role: 'user', content: [{ type: 'file', source: { kind: 'base64', data: 'JVBERi0=' }, mediaType: 'application/pdf', filename: 'Q3 report_final.v2.pdf' }, { type: 'text', text: 'Summarise.' }] }] });
    const body = encodeConverseRequest(request, 'amazon.nova-pro-v1:0');
    expect(converseProblem(body)).toBeUndefined();
    expect(body.messages[0]!.content[0]).toMatchObject({ document: { format: 'pdf', source: { bytes: 'JVBERi0=' } } });
  });
});

/** Any conversation a client can send: turns of any role, blank and real text, tool calls with any id, their results. */
const conversation = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant('user' as const), text: fc.oneof(fc.constant(''), fc.constant('  '), fc.string({ minLength: 1 })) }),
      fc.record({ kind: fc.constant('system' as const), text: fc.string({ minLength: 1 }) }),
      fc.record({ kind: fc.constant('assistant' as const), text: fc.string(), ids: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 80 }), { maxLength: 3 }) }),
    ),
    { maxLength: 8 },
  )
  .map((turns): Message[] => {
    const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Start.' }] }];
    for (const turn of turns) {
      if (turn.kind !== 'assistant') {
        messages.push({ role: turn.kind, content: [{ type: 'text', text: turn.text }] });
        continue;
      }
      messages.push({ role: 'assistant', content: [{ type: 'text', text: turn.text }, ...turn.ids.map((id) => ({ type: 'tool-call' as const, id, name: 'f', arguments: '{"a":1}' }))] });
      for (const id of turn.ids) messages.push({ role: 'tool', content: [{ type: 'tool-result', callId: id, content: [{ type: 'text', text: 'ok' }] }] });
    }
    return messages;
  });

describe('Converse request encoding, any conversation', () => {
  it("is a body the documented grammar accepts: alternating turns, no blank text, tool ids in Converse's alphabet, every result answering the turn before", () => {
    fc.assert(
      fc.property(conversation, fc.boolean(), fc.constantFrom<ToolChoice | undefined>(undefined, 'auto', 'none', 'required', { name: 'f' }), (messages, offered, toolChoice) => {
        const tools = offered ? [{ name: 'f', parameters: { type: 'object' } }] : [];
        const request: CanonicalRequest = { model: 'svc.test', system: [], messages, tools, ...(toolChoice !== undefined && offered ? { toolChoice } : {}) };
        const body = encodeConverseRequest(request, 'meta.llama3-70b-instruct-v1:0');
        // A conversation that ends on the assistant is the client's to send; the grammar is what is checked.
        expect(converseProblem(body)).toBeUndefined();
      }),
    );
  });
});
