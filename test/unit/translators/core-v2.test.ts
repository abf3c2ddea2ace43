import { describe, expect, it } from 'vitest';
import { encodeAnthropicRequest } from '../../../src/backends/anthropic/encode-request.js';
import { decodeAnthropicReply } from '../../../src/backends/anthropic/decode-reply.js';
import { encodeChatRequest } from '../../../src/backends/openai-chat/encode-request.js';
import { encodeResponsesRequest } from '../../../src/backends/openai-responses/encode-request.js';
import type { Reply } from '../../../src/core/reply.js';
import type { CanonicalRequest, Part } from '../../../src/core/request.js';
import type { StreamEvent } from '../../../src/core/stream-events.js';
import { encodeChatReply } from '../../../src/formats/chat/encode-reply.js';
import { decodeChatRequest } from '../../../src/formats/chat/decode-request.js';
import { decodeMessagesRequest } from '../../../src/formats/messages/decode-request.js';
import { encodeMessagesReply } from '../../../src/formats/messages/encode-reply.js';
import { encodeMessagesStream } from '../../../src/formats/messages/encode-stream.js';
import { decodeResponsesRequest } from '../../../src/formats/responses/decode-request.js';
import { encodeResponsesReply } from '../../../src/formats/responses/encode-reply.js';
import { isSealedByUs, sealReasoning, unsealReasoning } from '../../../src/formats/responses/seal-reasoning.js';
import { thinkingSignature } from '../../../src/formats/messages/foreign-reasoning.js';
import { parseSse } from '../../helpers/sse-frames.js';
import { collect, encodeContext, expectRouterError, fixtureJson, replay, userRequest } from './support.js';

const PDF = 'JVBERi0xLjQK';
const thrown = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
};
const withUser = (...content: Part[]): CanonicalRequest => userRequest('', { messages: [{ role: 'user', content }] });

describe('reasoning is replayed only from the encoder’s own namespace', () => {
  const turn = (providerMetadata: Record<string, Record<string, unknown>> | undefined): CanonicalRequest =>
    userRequest('', {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'Thought.', ...(providerMetadata ? { providerMetadata } : {}) }, { type: 'text', text: 'Hello' }] },
      ],
    });
  const anthropicBlocks = (request: CanonicalRequest) => (encodeAnthropicRequest(request, 'claude', false).messages as Array<{ content: Array<{ type: string }> }>)[1]!.content;
  const responsesItems = (request: CanonicalRequest) => (encodeResponsesRequest(request, 'gpt-5', false) as { input: Array<{ type?: string }> }).input;

  it('sends Gemini reasoning (a thoughtSignature, no Anthropic signature) to Anthropic as its visible text, never as signed thinking', () => {
    expect(anthropicBlocks(turn({ gemini: { thoughtSignature: 'CiQB' } }))).toEqual([{ type: 'text', text: 'Thought.' }, { type: 'text', text: 'Hello' }]);
  });

  it('sends Anthropic its own signature and redacted data back', () => {
    expect(anthropicBlocks(turn({ anthropic: { signature: 'sig-1' } }))[0]).toEqual({ type: 'thinking', thinking: 'Thought.', signature: 'sig-1' });
    expect(anthropicBlocks(turn({ anthropic: { redactedData: 'EmwK' } }))[0]).toEqual({ type: 'redacted_thinking', data: 'EmwK' });
  });

  it('sends OpenAI only its own encrypted content, never Anthropic’s or Gemini’s', () => {
    expect(responsesItems(turn({ openai: { encryptedContent: 'gAAAA', itemId: 'rs_1' } }))).toContainEqual({ type: 'reasoning', summary: [], encrypted_content: 'gAAAA' });
    const foreigns: Array<Record<string, Record<string, unknown>>> = [{ anthropic: { signature: 'sig-1' } }, { gemini: { thoughtSignature: 'CiQB' } }];
    for (const foreign of foreigns) {
      expect(responsesItems(turn(foreign)).some((item) => item.type === 'reasoning')).toBe(false);
    }
  });

  it('gives a Messages client another upstream’s reasoning with what that upstream needs sealed in the signature, and replays it only to that upstream', () => {
    const reply: Reply = { content: [{ type: 'reasoning', text: 'Thought.', providerMetadata: { gemini: { thoughtSignature: 'CiQB' } } }], finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
    const context = encodeContext({});
    const [block] = encodeMessagesReply(reply, context).content as Array<{ type: string; thinking: string; signature: string }>;
    expect(block).toMatchObject({ type: 'thinking', thinking: 'Thought.' });
    expect(isSealedByUs(block!.signature)).toBe(true);
    expect(block!.signature).not.toContain('CiQB');
    const replayed = { model: 'svc.test', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: [block] }, { role: 'user', content: 'Again' }] };
    const { request } = decodeMessagesRequest(replayed, { secret: context.secret });
    expect(request.messages[1]!.content).toEqual([{ type: 'reasoning', text: 'Thought.', providerMetadata: { gemini: { thoughtSignature: 'CiQB' } } }]);
    // Anthropic cannot read the seal: the body forwarded to it has the block as its text, the rest as the client wrote it.
    expect(request.forwardBody?.foreignReasoning).toEqual([{ message: 1, block: 0, text: 'Thought.' }]);
    const forwarded = encodeAnthropicRequest(request, 'claude-opus-5', false) as unknown as { messages: Array<{ content: unknown }> };
    expect(forwarded.messages[1]!.content).toEqual([{ type: 'text', text: 'Thought.' }]);
  });
});

describe('sealed reasoning across versions', () => {
  const OLD_SECRET = 'old-seal-test-secret';
  const sealedV1 = fixtureJson<Record<'anthropic' | 'anthropicRedacted' | 'openai', string>>('sealed-reasoning/v1.json');

  it('opens payloads sealed by the previous version into providerMetadata', () => {
    expect(isSealedByUs(sealedV1.anthropic)).toBe(true);
    expect(unsealReasoning(sealedV1.anthropic, OLD_SECRET, 'x')).toEqual({ type: 'reasoning', text: 'Adding the numbers.', providerMetadata: { anthropic: { signature: 'sig-old-1' } } });
    expect(unsealReasoning(sealedV1.anthropicRedacted, OLD_SECRET, 'x')).toEqual({ type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: 'redacted-old' } } });
    expect(unsealReasoning(sealedV1.openai, OLD_SECRET, 'x')).toEqual({ type: 'reasoning', text: 'Summary.', providerMetadata: { openai: { encryptedContent: 'gAAAA-old' } } });
  });

  it('replays an item sealed by the previous version to Anthropic with its signature', () => {
    const decoded = decodeResponsesRequest(
      {
        model: 'svc.test',
        input: [
          { role: 'user', content: 'Add 2 and 2' },
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Adding the numbers.' }], encrypted_content: sealedV1.anthropic },
          { role: 'assistant', content: [{ type: 'output_text', text: '4' }] },
          { role: 'user', content: 'Thanks' },
        ],
      },
      { secret: OLD_SECRET },
    );
    const body = encodeAnthropicRequest({ ...decoded.request, forwardBody: undefined } as CanonicalRequest, 'claude', false);
    expect((body.messages as Array<{ content: unknown[] }>)[1]!.content[0]).toEqual({ type: 'thinking', thinking: 'Adding the numbers.', signature: 'sig-old-1' });
  });

  it('seals the new version with the whole providerMetadata', () => {
    const part = { type: 'reasoning' as const, text: 't', providerMetadata: { openai: { encryptedContent: 'e', itemId: 'rs_2' } } };
    const sealed = sealReasoning(part, 's');
    expect(sealed.startsWith('svcr2.')).toBe(true);
    expect(unsealReasoning(sealed, 's', 'x')).toEqual(part);
  });

  it('seals the model that wrote the reasoning, and opens it again with it', () => {
    const part = { type: 'reasoning' as const, text: '', providerMetadata: { anthropic: { signature: 'sig-fable' } }, writer: 'claude-fable-5-1' };
    expect(unsealReasoning(sealReasoning(part, 's'), 's', 'x')).toEqual(part);
    // A Messages client's thinking from another upstream carries its writer in the signature the router seals.
    const signature = thinkingSignature({ gemini: { thoughtSignature: 'ts-1' } }, 's', 'gemini-3-pro-preview')!;
    expect(unsealReasoning(signature, 's', 'x').writer).toBe('gemini-3-pro-preview');
  });
});

describe('file parts', () => {
  it('decode from a Chat file part, a Responses input_file and a Messages document block', () => {
    const chat = decodeChatRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${PDF}` } }] }] });
    expect(chat.request.messages[0]!.content).toEqual([{ type: 'file', source: { kind: 'base64', data: PDF }, mediaType: 'application/pdf', filename: 'a.pdf' }]);
    const responses = decodeResponsesRequest(
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_url: 'https://example.com/a.pdf' }, { type: 'input_file', file_id: 'file-1', filename: 'b.pdf' }] }] },
      { secret: 's' },
    );
    expect(responses.request.messages[0]!.content).toEqual([
      { type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf' }, mediaType: 'application/pdf' },
      { type: 'file', source: { kind: 'file-id', id: 'file-1', provider: 'openai' }, filename: 'b.pdf' },
    ]);
    const messages = decodeMessagesRequest({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: [{ type: 'document', title: 'notes', source: { type: 'text', media_type: 'text/plain', data: 'Plain notes.' }, cache_control: { type: 'ephemeral' } }] }],
    });
    expect(messages.request.messages[0]!.content).toEqual([
      { type: 'file', source: { kind: 'text', text: 'Plain notes.' }, mediaType: 'text/plain', filename: 'notes', providerMetadata: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
    ]);
  });

  it('encode natively for each backend', () => {
    const pdf = withUser({ type: 'text', text: 'Summarise' }, { type: 'file', source: { kind: 'base64', data: PDF }, mediaType: 'application/pdf', filename: 'a.pdf' });
    expect((encodeAnthropicRequest(pdf, 'claude', false).messages as Array<{ content: unknown[] }>)[0]!.content[1]).toEqual({
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: PDF },
      title: 'a.pdf',
      // The newest block: where the router's breakpoint goes for a client that set none.
      cache_control: { type: 'ephemeral' },
    });
    expect((encodeChatRequest(pdf, 'gpt', false).messages as Array<{ content: unknown[] }>)[0]!.content[1]).toEqual({
      type: 'file',
      file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${PDF}` },
    });
    expect((encodeResponsesRequest(pdf, 'gpt', false) as { input: Array<{ content: unknown[] }> }).input[0]!.content[1]).toEqual({
      type: 'input_file',
      filename: 'a.pdf',
      file_data: `data:application/pdf;base64,${PDF}`,
    });
  });

  it('are refused with a 400 naming the part where a backend cannot take their form', () => {
    const openaiId = withUser({ type: 'file', source: { kind: 'file-id', id: 'file-1', provider: 'openai' } });
    const error = expectRouterError(thrown(() => encodeAnthropicRequest(openaiId, 'claude', false)), 400, 'invalid_request');
    expect(error.message).toMatch(/^messages\[0\]\.content\[0\]: the file id 'file-1' was issued by openai/);
    const url = withUser({ type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf' }, mediaType: 'application/pdf' });
    expect(expectRouterError(thrown(() => encodeChatRequest(url, 'gpt', false)), 400, 'invalid_request').message).toMatch(/^messages\[0\]\.content\[0\]: Chat Completions takes a file only inline/);
  });
});

describe('finish reason and usage', () => {
  const anthropicBody = {
    id: 'msg_1',
    type: 'message',
    content: [{ type: 'text', text: 'Up to ###' }],
    stop_reason: 'stop_sequence',
    stop_sequence: '###',
    usage: { input_tokens: 20, cache_creation_input_tokens: 100, cache_read_input_tokens: 80, output_tokens: 7 },
  };

  it('reaches a Messages client exactly: stop_sequence with the sequence, cache writes and reads', () => {
    const reply = decodeAnthropicReply('claude', anthropicBody);
    expect(reply.usage).toMatchObject({ inputTokens: 200, cachedInputTokens: 80, cacheWriteInputTokens: 100, outputTokens: 7 });
    expect(encodeMessagesReply(reply, encodeContext({}))).toMatchObject({
      stop_reason: 'stop_sequence',
      stop_sequence: '###',
      usage: { input_tokens: 20, cache_creation_input_tokens: 100, cache_read_input_tokens: 80, output_tokens: 7 },
    });
  });

  it.each(['pause_turn', 'refusal'])('keeps %s for a Messages client, JSON and stream', async (reason) => {
    const reply = decodeAnthropicReply('claude', { ...anthropicBody, stop_reason: reason, stop_sequence: null });
    expect(encodeMessagesReply(reply, encodeContext({}))).toMatchObject({ stop_reason: reason, stop_sequence: null });
    const events: StreamEvent[] = [
      { type: 'start', usage: reply.usage },
      { type: 'finish', reason: reply.finishReason, ...(reply.finish ? { finish: reply.finish } : {}), usage: reply.usage, ...(reply.providerMetadata ? { providerMetadata: reply.providerMetadata } : {}) },
    ];
    const frames = parseSse((await collect(encodeMessagesStream(replay(events), encodeContext({})))).join(''));
    expect(JSON.parse(frames.find((frame) => frame.event === 'message_delta')!.data)).toMatchObject({
      delta: { stop_reason: reason, stop_sequence: null },
      usage: { cache_creation_input_tokens: 100, cache_read_input_tokens: 80, input_tokens: 20 },
    });
  });

  it('maps to the nearest native value on translated paths, with cached and reasoning tokens', () => {
    const stopped = decodeAnthropicReply('claude', anthropicBody);
    const chat = encodeChatReply(stopped, encodeContext({ includeUsage: false }));
    expect(chat.choices[0]!.finish_reason).toBe('stop');
    expect(chat.usage).toMatchObject({ prompt_tokens: 200, prompt_tokens_details: { cached_tokens: 80 } });
    const refused = decodeAnthropicReply('claude', { ...anthropicBody, stop_reason: 'refusal' });
    const responsesContext = encodeContext({ toolsByName: new Map(), includeEncryptedReasoning: false } as never);
    expect(encodeResponsesReply(refused, responsesContext)).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } });
    const paused = decodeAnthropicReply('claude', { ...anthropicBody, stop_reason: 'pause_turn' });
    expect(encodeResponsesReply(paused, responsesContext)).toMatchObject({ status: 'completed', incomplete_details: null, usage: { input_tokens_details: { cached_tokens: 80 } } });
  });
});

describe('warnings', () => {
  it('name settings a backend cannot honour, replaced on each encoding', () => {
    const request = userRequest('Hi', { topK: 40, stop: ['###'] });
    encodeResponsesRequest(request, 'gpt', false);
    expect(request.backendWarnings).toEqual(['stop sequences not sent: the OpenAI Responses API has no such setting.', 'top_k not sent: OpenAI has no such setting.']);
    const body = encodeAnthropicRequest(request, 'claude', false);
    expect(body).toMatchObject({ top_k: 40, stop_sequences: ['###'] });
    expect(request.backendWarnings).toBeUndefined();
  });

  it('from the reply reach svc_meta', () => {
    const reply: Reply = { content: [], finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 }, warnings: ['left out'] };
    expect(encodeChatReply(reply, encodeContext({ includeUsage: false })).svc_meta.warnings).toEqual(['left out']);
  });
});
