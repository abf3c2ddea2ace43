import { describe, expect, it } from 'vitest';
import { encodeAnthropicRequest } from '../../../src/backends/anthropic/encode-request.js';
import { encodeGeminiRequest } from '../../../src/backends/gemini/encode-request.js';
import { encodeChatRequest } from '../../../src/backends/openai-chat/encode-request.js';
import { encodeResponsesRequest } from '../../../src/backends/openai-responses/encode-request.js';
import type { CanonicalRequest, Message } from '../../../src/core/request.js';
import { thrownBy } from '../decoders/support.js';
import { userRequest } from './support.js';

/** Every translating encoder, by backend type. */
const ENCODERS = {
  'openai-chat': (request: CanonicalRequest) => encodeChatRequest(request, 'gpt-4.1', false) as unknown as Record<string, any>,
  'openai-responses': (request: CanonicalRequest) => encodeResponsesRequest(request, 'gpt-4.1', false) as unknown as Record<string, any>,
  anthropic: (request: CanonicalRequest) => encodeAnthropicRequest(request, 'claude-sonnet-4-5', false) as unknown as Record<string, any>,
  gemini: (request: CanonicalRequest) => encodeGeminiRequest(request, 'gemini-2.5-flash', false) as unknown as Record<string, any>,
} as const;
type Kind = keyof typeof ENCODERS;
const KINDS = Object.keys(ENCODERS) as Kind[];

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const SCHEMA = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };

describe('what only a same-format upstream can take', () => {
  it.each(KINDS)('%s refuses the first part marked refuse, with a 400 naming it', (kind) => {
    const request = userRequest('hi', {
      sameFormatOnly: [
        { param: 'logprobs', message: 'not returned.', refuse: false },
        { param: 'input[1]', message: "a replayed 'web_search_call' item can be passed only to an OpenAI Responses upstream.", refuse: true },
      ],
    });
    const error = thrownBy(() => ENCODERS[kind](request));
    expect({ status: error.status, param: error.param, message: error.message }).toEqual({
      status: 400,
      param: 'input[1]',
      message: "input[1]: a replayed 'web_search_call' item can be passed only to an OpenAI Responses upstream.",
    });
  });

  it.each(KINDS)('%s names settings it cannot honour in its warnings', (kind) => {
    const request = userRequest('hi', { sameFormatOnly: [{ param: 'logit_bias', message: 'not sent: token ids are OpenAI-specific.', refuse: false }] });
    ENCODERS[kind](request);
    expect(request.backendWarnings).toContain('logit_bias: not sent: token ids are OpenAI-specific.');
  });

  it('a same-format upstream gets the forwarded body and refuses nothing', () => {
    const body = { model: 'svc.test', input: [{ type: 'web_search_call', id: 'ws_1' }] };
    const request = userRequest('hi', { forwardBody: { format: 'responses', body }, sameFormatOnly: [{ param: 'input[0]', message: 'x', refuse: true }] });
    expect(encodeResponsesRequest(request, 'gpt-4.1', false).input).toEqual(body.input);
    expect(request.backendWarnings).toBeUndefined();
  });
});

describe('JSON mode, seed and penalties', () => {
  const settings = { jsonObject: true, seed: 5, frequencyPenalty: 0.5, presencePenalty: -1 };

  it('openai-chat sends them all natively', () => {
    const request = userRequest('JSON', settings);
    expect(ENCODERS['openai-chat'](request)).toMatchObject({ response_format: { type: 'json_object' }, seed: 5, frequency_penalty: 0.5, presence_penalty: -1 });
    expect(request.backendWarnings).toBeUndefined();
  });

  it('openai-responses sends JSON mode as text.format and names the rest', () => {
    const request = userRequest('JSON', settings);
    const body = ENCODERS['openai-responses'](request);
    expect(body.text).toEqual({ format: { type: 'json_object' } });
    expect(body).not.toHaveProperty('seed');
    expect(request.backendWarnings).toEqual(['seed, frequency_penalty, presence_penalty not sent: the OpenAI Responses API has no such setting.']);
  });

  it('anthropic names them all', () => {
    const request = userRequest('JSON', settings);
    const body = ENCODERS.anthropic(request);
    expect(body).not.toHaveProperty('output_config');
    expect(request.backendWarnings).toEqual([
      'JSON mode (json_object) not sent: Anthropic holds an answer to JSON only given a schema; send a json_schema format instead.',
      'seed, frequency_penalty, presence_penalty not sent: Anthropic has no such setting.',
    ]);
  });

  it('gemini sends them all in generationConfig', () => {
    const request = userRequest('JSON', settings);
    expect(ENCODERS.gemini(request).generationConfig).toMatchObject({ responseMimeType: 'application/json', seed: 5, frequencyPenalty: 0.5, presencePenalty: -1 });
    expect(request.backendWarnings).toBeUndefined();
  });
});

describe('a JSON schema on an anthropic upstream', () => {
  it('is output_config.format (structured outputs), not prompt text, with $schema left out', () => {
    const request = userRequest('hi', { system: [{ type: 'text', text: 'Be brief.' }], outputSchema: { name: 'answer', schema: { $schema: 'http://json-schema.org/draft-07/schema#', ...SCHEMA }, strict: true } });
    const body = ENCODERS.anthropic(request);
    expect(body.output_config).toEqual({ format: { type: 'json_schema', schema: SCHEMA } });
    expect(body.system).toEqual([{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }]);
  });
});

describe('image detail and images in tool results', () => {
  const withDetail = (detail: 'low' | 'original'): CanonicalRequest => ({
    ...userRequest(),
    messages: [{ role: 'user', content: [{ type: 'image', url: PNG, detail }] }],
  });

  it('openai-chat sends image_url.detail, and names a detail Chat does not take', () => {
    expect(ENCODERS['openai-chat'](withDetail('low')).messages[0].content).toEqual([{ type: 'image_url', image_url: { url: PNG, detail: 'low' } }]);
    const original = withDetail('original');
    expect(ENCODERS['openai-chat'](original).messages[0].content).toEqual([{ type: 'image_url', image_url: { url: PNG } }]);
    expect(original.backendWarnings).toEqual(["image detail 'original' not sent: Chat Completions takes low, high or auto."]);
  });

  it('openai-responses sends input_image detail', () => {
    expect(ENCODERS['openai-responses'](withDetail('low')).input[0].content).toEqual([{ type: 'input_image', image_url: PNG, detail: 'low' }]);
  });

  it.each<[Kind, string]>([
    ['anthropic', 'image detail not sent: Anthropic has no such setting, and sizes images itself.'],
    ['gemini', 'image detail not sent: Gemini sets media resolution per request, not per image.'],
  ])('%s names a detail it cannot send', (kind, warning) => {
    const request = withDetail('low');
    ENCODERS[kind](request);
    expect(request.backendWarnings).toEqual([warning]);
  });

  const screenshotTurn: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'Look.' }] },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', id: 'c1', name: 'shot', arguments: '{}' },
        { type: 'tool-call', id: 'c2', name: 'shot', arguments: '{}' },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: 'one' }, { type: 'image', url: PNG }] },
        { type: 'tool-result', callId: 'c2', content: [{ type: 'image', url: 'https://e.x/2.png' }, { type: 'image', url: 'https://e.x/3.png', detail: 'high' }] },
      ],
    },
  ];

  it('openai-chat follows the tool messages with one user message holding their images', () => {
    const body = ENCODERS['openai-chat']({ ...userRequest(), messages: screenshotTurn });
    expect(body.messages.slice(-3)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      { role: 'tool', tool_call_id: 'c2', content: '' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The result of tool call c1 includes this image:' },
          { type: 'image_url', image_url: { url: PNG } },
          { type: 'text', text: 'The result of tool call c2 includes these images:' },
          { type: 'image_url', image_url: { url: 'https://e.x/2.png' } },
          { type: 'image_url', image_url: { url: 'https://e.x/3.png', detail: 'high' } },
        ],
      },
    ]);
  });

  it('openai-responses sends a tool output with images as an input_text/input_image list, and text-only outputs as a string', () => {
    const body = ENCODERS['openai-responses']({ ...userRequest(), messages: screenshotTurn });
    expect(body.input.slice(-2)).toEqual([
      { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'one' }, { type: 'input_image', image_url: PNG }] },
      {
        type: 'function_call_output',
        call_id: 'c2',
        output: [
          { type: 'input_image', image_url: 'https://e.x/2.png' },
          { type: 'input_image', image_url: 'https://e.x/3.png', detail: 'high' },
        ],
      },
    ]);
  });
});

describe('citations on a replayed answer', () => {
  it('anthropic sends them back on the text block', () => {
    const citations = [{ type: 'char_location', cited_text: 'x', document_index: 0, start_char_index: 0, end_char_index: 1 }];
    const request: CanonicalRequest = {
      ...userRequest(),
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'It is x.', providerMetadata: { anthropic: { citations } } }] },
        { role: 'user', content: [{ type: 'text', text: 'more' }] },
      ],
    };
    expect(ENCODERS.anthropic(request).messages[1].content).toEqual([{ type: 'text', text: 'It is x.', citations }]);
  });
});
