import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { Fakes, metaOf, parseSse, SKU, type UpstreamKind } from './support.js';

/**
 * Nothing silently lost: every part a client sends reaches the upstream in that upstream's own
 * wire form, or the request is refused with a 400 naming the part. Each test asserts exactly what
 * the fake upstream received.
 */

let router: TestRouter;
const fakes = new Fakes();

beforeAll(async () => {
  router = await startRouter();
});
afterEach(() => fakes.closeAll());
afterAll(() => router.close());

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };

type Format = 'responses' | 'chat' | 'messages';
const PATHS: Record<Format, string> = { responses: '/v1/responses', chat: '/v1/chat/completions', messages: '/v1/messages' };

async function post(format: Format, body: Record<string, unknown>): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const response = await fetch(`${router.origin}${PATHS[format]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${router.key}`, 'x-api-key': router.key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: SKU, ...body }),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** Routes the SKU to a fresh fake of this kind that answers "ok"; returns what it received. */
async function upstream(kind: UpstreamKind) {
  const { fake } = await fakes.routeSku(router, kind, [{ text: 'ok' }, { text: 'ok' }]);
  return fake;
}

const toolTurn = {
  responses: (output: unknown) => [
    { role: 'user', content: 'Look at the screen.' },
    { type: 'function_call', call_id: 'call_1', name: 'screenshot', arguments: '{}' },
    { type: 'function_call_output', call_id: 'call_1', output },
  ],
};
const SCREENSHOT_TOOL = { type: 'function', name: 'screenshot', parameters: { type: 'object', properties: {} } };

describe('history by reference (store: true clients)', () => {
  it.each<UpstreamKind>(['openai-chat', 'openai-responses', 'anthropic'])('an item_reference is a 400 in OpenAI shape naming the item, and nothing goes upstream (%s)', async (kind) => {
    const fake = await upstream(kind);
    const input = [{ role: 'user', content: 'hi' }, { type: 'item_reference', id: 'msg_0123' }, { role: 'user', content: 'and?' }];
    const reply = await post('responses', { input });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatchObject({ type: 'invalid_request_error', param: 'input[1]' });
    expect(reply.json.error.message).toContain('store: false');
    expect(fake.requests).toHaveLength(0);
  });

  it('store is echoed false when the client did not ask', async () => {
    await upstream('openai-chat');
    const reply = await post('responses', { input: 'hi' });
    expect(reply.status).toBe(200);
    expect(reply.json.store).toBe(false);
  });
});

describe('replayed parts only a same-format upstream can take', () => {
  const input = [{ role: 'user', content: 'news?' }, { type: 'file_search_call', id: 'fs_1', status: 'completed', queries: ['news'], results: null }, { role: 'assistant', content: 'Here.' }, { role: 'user', content: 'more' }];
  const searched = [{ role: 'user', content: 'news?' }, { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'news' } }, { role: 'assistant', content: 'Here.' }, { role: 'user', content: 'more' }];

  it.each<UpstreamKind>(['openai-chat', 'anthropic'])('a replayed web_search_call reaches a translating route said in words (%s)', async (kind) => {
    const fake = await upstream(kind);
    const reply = await post('responses', { input: searched });
    expect(reply.status).toBe(200);
    expect(JSON.stringify(fake.requests[0]!.body)).toContain('Searched the web for \\"news\\"');
  });

  it.each<UpstreamKind>(['openai-chat', 'anthropic'])('a replayed file_search_call is refused naming it on a translating route (%s)', async (kind) => {
    const fake = await upstream(kind);
    const reply = await post('responses', { input });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatchObject({ type: 'invalid_request_error', param: 'input[1]' });
    expect(fake.requests).toHaveLength(0);
  });

  it('the offline backend refuses it as a translating upstream would, so a script tried offline meets what it will meet live', async () => {
    router.config.update((settings) => {
      settings.routes[SKU] = ['offline'];
    });
    const reply = await post('responses', { input });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatchObject({ type: 'invalid_request_error', param: 'input[1]' });
  });

  it('a replayed web_search_call reaches an OpenAI Responses upstream as sent', async () => {
    const fake = await upstream('openai-responses');
    const reply = await post('responses', { input: searched });
    expect(reply.status).toBe(200);
    expect(fake.requests[0]!.body.input).toEqual(searched);
  });

  it('a Messages search_result block is refused on an openai-chat route, in Anthropic shape', async () => {
    const fake = await upstream('openai-chat');
    const searchResult = { type: 'search_result', source: 'https://e.x', title: 'T', content: [{ type: 'text', text: 'found' }] };
    const reply = await post('messages', { max_tokens: 100, messages: [{ role: 'user', content: [{ type: 'text', text: 'see' }, searchResult] }] });
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(reply.json.error.message).toContain('messages.0.content.1');
    expect(fake.requests).toHaveLength(0);
  });

  it('Messages server tools are left out of an openai-chat request and listed in dropped_tools', async () => {
    const fake = await upstream('openai-chat');
    const tools = [{ type: 'code_execution_20250825', name: 'code_execution' }, { name: 'f', input_schema: { type: 'object', properties: {} } }];
    const reply = await post('messages', { max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], tools });
    expect(reply.status).toBe(200);
    expect(fake.requests[0]!.body.tools.map((tool: any) => tool.function.name)).toEqual(['f']);
  });
});

describe('images inside tool results', () => {
  it('Responses function_call_output images reach an openai-chat upstream in a user message after the tool message', async () => {
    const fake = await upstream('openai-chat');
    const output = [{ type: 'input_text', text: 'Captured.' }, { type: 'input_image', image_url: PNG, detail: 'high' }];
    const reply = await post('responses', { input: toolTurn.responses(output), tools: [SCREENSHOT_TOOL] });
    expect(reply.status).toBe(200);
    expect(fake.requests[0]!.body.messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'Captured.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The result of tool call call_1 includes this image:' },
          { type: 'image_url', image_url: { url: PNG, detail: 'high' } },
        ],
      },
    ]);
  });

  it('Anthropic tool_result images reach an openai-chat upstream in a user message after the tool messages', async () => {
    const fake = await upstream('openai-chat');
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };
    const messages = [
      { role: 'user', content: 'Look.' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/tmp/a.png' } },
          { type: 'tool_use', id: 'toolu_2', name: 'Read', input: { file_path: '/tmp/b.txt' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [image] },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'text file' },
        ],
      },
    ];
    const tools = [{ name: 'Read', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } }];
    const reply = await post('messages', { max_tokens: 100, messages, tools });
    expect(reply.status).toBe(200);
    expect(fake.requests[0]!.body.messages.slice(-3)).toEqual([
      { role: 'tool', tool_call_id: 'toolu_1', content: '' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'text file' },
      { role: 'user', content: [{ type: 'text', text: 'The result of tool call toolu_1 includes this image:' }, { type: 'image_url', image_url: { url: PNG } }] },
    ]);
  });

  it('Anthropic tool_result images reach an openai-responses upstream natively, as an output list', async () => {
    const fake = await upstream('openai-responses');
    const image = { type: 'image', source: { type: 'url', url: 'https://e.x/shot.png' } };
    const messages = [
      { role: 'user', content: 'Look.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Shot:' }, image] }] },
    ];
    const reply = await post('messages', { max_tokens: 100, messages, tools: [{ name: 'Read', input_schema: { type: 'object', properties: {} } }] });
    expect(reply.status).toBe(200);
    expect(fake.requests[0]!.body.input.at(-1)).toEqual({
      type: 'function_call_output',
      call_id: 'toolu_1',
      output: [
        { type: 'input_text', text: 'Shot:' },
        { type: 'input_image', image_url: 'https://e.x/shot.png' },
      ],
    });
  });
});

describe('structured output', () => {
  it('Anthropic output_config.format reaches an openai-chat upstream as response_format json_schema', async () => {
    const fake = await upstream('openai-chat');
    const reply = await post('messages', { max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], output_config: { format: { type: 'json_schema', schema: SCHEMA } } });
    expect(reply.status).toBe(200);
    expect(fake.requests[0]!.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema: SCHEMA, strict: true } });
  });

  it('Anthropic output_config.format reaches an openai-responses upstream as text.format', async () => {
    const fake = await upstream('openai-responses');
    const reply = await post('messages', { max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], output_config: { format: { type: 'json_schema', schema: SCHEMA } } });
    expect(reply.status).toBe(200);
    expect(fake.requests[0]!.body.text).toEqual({ format: { type: 'json_schema', name: 'output', schema: SCHEMA, strict: true } });
  });

  it.each<[Format, Record<string, unknown>]>([
    ['chat', { messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { $schema: 'http://json-schema.org/draft-07/schema#', ...SCHEMA }, strict: true } } }],
    ['responses', { input: 'hi', text: { format: { type: 'json_schema', name: 'answer', schema: SCHEMA, strict: true } } }],
  ])('a %s JSON schema reaches an anthropic upstream as output_config.format, not prompt text', async (format, body) => {
    const fake = await upstream('anthropic');
    const reply = await post(format, body);
    expect(reply.status).toBe(200);
    const sent = fake.requests[0]!.body;
    expect(sent.output_config).toEqual({ format: { type: 'json_schema', schema: SCHEMA } });
    expect(JSON.stringify(sent.system ?? '')).not.toContain('JSON schema');
  });

  it('Chat JSON mode and seed reach an openai-responses upstream as text.format json_object, with the seed named in the warnings', async () => {
    const fake = await upstream('openai-responses');
    const reply = await post('chat', { messages: [{ role: 'user', content: 'JSON please' }], response_format: { type: 'json_object' }, seed: 3 });
    expect(reply.status).toBe(200);
    expect(fake.requests[0]!.body.text).toEqual({ format: { type: 'json_object' } });
    expect(fake.requests[0]!.body).not.toHaveProperty('seed');
    expect(metaOf(reply.json).warnings).toContain('seed not sent: the OpenAI Responses API has no such setting.');
  });

  it('Responses JSON mode, seed-free, reaches an openai-chat upstream as response_format json_object', async () => {
    const fake = await upstream('openai-chat');
    const reply = await post('responses', { input: 'JSON please', text: { format: { type: 'json_object' } } });
    expect(reply.status).toBe(200);
    expect(fake.requests[0]!.body.response_format).toEqual({ type: 'json_object' });
  });
});

describe('image detail', () => {
  it('a Responses input_image detail reaches an openai-chat upstream as image_url.detail', async () => {
    const fake = await upstream('openai-chat');
    const reply = await post('responses', { input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is it?' }, { type: 'input_image', image_url: PNG, detail: 'low' }] }] });
    expect(reply.status).toBe(200);
    expect(fake.requests[0]!.body.messages.at(-1).content).toEqual([
      { type: 'text', text: 'What is it?' },
      { type: 'image_url', image_url: { url: PNG, detail: 'low' } },
    ]);
  });
});

describe('previous_response_id without the history', () => {
  const WARNING = "previous_response_id 'resp_earlier' not used: svc-router stores no responses, so the model sees only the items in this request's input; send the whole conversation (store: false).";

  it.each<UpstreamKind>(['openai-chat', 'openai-responses', 'anthropic'])('is accepted, named in svc_meta.warnings and the x-svc-warning header (%s)', async (kind) => {
    const fake = await upstream(kind);
    const reply = await post('responses', { input: 'two', previous_response_id: 'resp_earlier' });
    expect(reply.status).toBe(200);
    expect(reply.json.previous_response_id).toBe('resp_earlier');
    expect(metaOf(reply.json).warnings).toContain(WARNING);
    expect(reply.headers.get('x-svc-warning')).toContain(WARNING);
    expect(fake.requests[0]!.body).not.toHaveProperty('previous_response_id');
  });

  it('is named in the header of a stream too', async () => {
    await upstream('anthropic');
    const reply = await post('responses', { input: 'two', previous_response_id: 'resp_earlier', stream: true });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-svc-warning')).toContain(WARNING);
    const done = parseSse(reply.text).find((frame: any) => frame.event === 'response.completed') as any;
    expect(JSON.stringify(done)).toContain('not used: svc-router stores no responses');
  });
});
