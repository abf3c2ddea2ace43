import { describe, expect, it } from 'vitest';
import { encodeChatRequest } from '../../../src/backends/openai-chat/encode-request.js';
import type { CanonicalRequest } from '../../../src/core/request.js';
import { fixtureJson, userRequest } from './support.js';

const golden = (name: string) => fixtureJson(`expected/openai-chat/${name}.json`);

const conversation: CanonicalRequest = {
  model: 'svc.coder',
  system: [
    { type: 'text', text: 'You are terse.' },
    { type: 'text', text: 'Answer in English.' },
  ],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Tokyo?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Two cities, two calls.', providerMetadata: { anthropic: { signature: 'sig' } } },
        { type: 'text', text: 'Checking both.' },
        { type: 'tool-call', id: 'call_paris', name: 'get_weather', arguments: '{"location":"Paris"}' },
        { type: 'tool-call', id: 'call_tokyo', name: 'get_weather', arguments: '{"location":"Tokyo"}' },
      ],
    },
    { role: 'tool', content: [{ type: 'tool-result', callId: 'call_paris', content: [{ type: 'text', text: '18°C' }] }] },
    {
      role: 'tool',
      content: [{ type: 'tool-result', callId: 'call_tokyo', content: [{ type: 'text', text: '24°C' }, { type: 'text', text: 'humid' }] }],
    },
    { role: 'assistant', content: [{ type: 'tool-call', id: 'call_again', name: 'get_weather', arguments: '{}' }] },
    { role: 'tool', content: [{ type: 'tool-result', callId: 'call_again', content: [{ type: 'text', text: 'n/a' }], isError: true }] },
    { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
    { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
  ],
  tools: [],
  maxOutputTokens: 512,
  temperature: 0.2,
  topP: 0.9,
  stop: ['END'],
  reasoningEffort: 'low',
};

describe('openai-chat encodeChatRequest', () => {
  it('encodes system, user, assistant tool calls and one tool message per result', () => {
    expect(encodeChatRequest(conversation, 'o3', false)).toEqual(golden('request-conversation'));
  });

  it('sends reasoning_effort only to reasoning model families', () => {
    const effort = (model: string) => encodeChatRequest(userRequest('x', { reasoningEffort: 'high' }), model, false).reasoning_effort;
    expect(effort('o4-mini')).toBe('high');
    expect(effort('gpt-5-mini')).toBe('high');
    expect(effort('openai/o3')).toBe('high');
    expect(effort('gpt-4o')).toBeUndefined();
    expect(effort('llama3.2')).toBeUndefined();
  });

  it("sends the client's prompt_cache_key and retention to OpenAI's model families, whose servers know them", () => {
    const cache = (model: string) => {
      const body = encodeChatRequest(userRequest('x', { promptCacheKey: 'thread-1', promptCacheRetention: '24h' }), model, false);
      return [body.prompt_cache_key, body.prompt_cache_retention];
    };
    expect(cache('gpt-4.1')).toEqual(['thread-1', '24h']);
    expect(cache('openai/gpt-5')).toEqual(['thread-1', '24h']);
    expect(cache('qwen3-coder')).toEqual([undefined, undefined]);
  });

  it('turns an output schema into response_format json_schema', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const body = encodeChatRequest(userRequest('x', { outputSchema: { name: 'answer', schema, strict: true } }), 'gpt-4o', false);
    expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } });
  });

  it('sends a user turn with images as content parts, data URLs untouched', () => {
    const request = userRequest('unused', {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image', url: 'https://example.com/cat.png' },
            { type: 'image', url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==', mediaType: 'image/png' },
          ],
        },
      ],
    });
    expect(encodeChatRequest(request, 'gpt-4o', false).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==' } },
        ],
      },
    ]);
  });

  it('encodes tools, a named tool_choice and parallel_tool_calls, stripping $schema', () => {
    const request = userRequest('Say hello', {
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather for a place',
          parameters: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            type: 'object',
            properties: { location: { type: 'string' } },
            required: ['location'],
            additionalProperties: false,
          },
        },
        { name: 'noop', parameters: { type: 'object', properties: {} } },
      ],
      toolChoice: { name: 'get_weather' },
      parallelToolCalls: false,
    });
    expect(encodeChatRequest(request, 'gpt-4o', false)).toEqual(golden('request-tools'));
  });

  it('passes string tool choices through as they are', () => {
    const tools = [{ name: 'noop', parameters: { type: 'object' } }];
    for (const choice of ['auto', 'none', 'required'] as const) {
      expect(encodeChatRequest(userRequest('x', { tools, toolChoice: choice }), 'm', false).tool_choice).toBe(choice);
    }
  });

  it('leaves tool_choice and parallel_tool_calls out when there are no tools', () => {
    const body = encodeChatRequest(userRequest('x', { toolChoice: 'auto', parallelToolCalls: true }), 'm', false);
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('parallel_tool_calls');
  });

  it('asks for usage in the stream when streaming', () => {
    expect(encodeChatRequest(userRequest(), 'gpt-4o', true)).toEqual({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Say hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  describe('forwarding a chat body', () => {
    const clientBody = {
      model: 'svc.coder',
      messages: [{ role: 'user', content: 'Say hello', name: 'dev' }],
      logit_bias: { '50256': -100 },
      seed: 7,
      user: 'user-123',
      prediction: { type: 'content', content: 'hello' },
      x_vendor_flag: { deep: [1, 2, 3] },
      stream: true,
      stream_options: { include_usage: false, include_obfuscation: false },
    };
    const request = () => userRequest('Say hello', { forwardBody: { format: 'chat', body: structuredClone(clientBody) } });

    it('keeps unknown fields and renames the model, forcing usage on when streaming', () => {
      expect(encodeChatRequest(request(), 'gpt-4o-2024-08-06', true)).toEqual({
        ...clientBody,
        model: 'gpt-4o-2024-08-06',
        stream: true,
        stream_options: { include_usage: true, include_obfuscation: false },
      });
    });

    it('drops stream and stream_options when not streaming', () => {
      const { stream: _stream, stream_options: _options, ...rest } = clientBody;
      expect(encodeChatRequest(request(), 'gpt-4o-2024-08-06', false)).toEqual({ ...rest, model: 'gpt-4o-2024-08-06' });
    });

    it('does not change the client body it was given', () => {
      const original = request();
      encodeChatRequest(original, 'gpt-4o-2024-08-06', true);
      encodeChatRequest(original, 'gpt-4o-2024-08-06', false);
      expect(original.forwardBody?.body).toEqual(clientBody);
    });

    it('ignores a forward body of another format', () => {
      const body = encodeChatRequest(userRequest('Say hello', { forwardBody: { format: 'messages', body: { max_tokens: 10 } } }), 'gpt-4o', false);
      expect(body).toEqual({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] });
    });
  });
});
