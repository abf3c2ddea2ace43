import { isObject, openEventStream, sendJson, startFakeServer, type FakeUpstream } from '../fake-server.js';

/**
 * A local server's Anthropic-compatible `/v1/messages`, as Ollama documents it
 * (https://docs.ollama.com/api/anthropic-compatibility; llama.cpp's server and LM Studio follow the
 * same shape): text, tool_use and thinking blocks, streamed with text, input_json and thinking
 * deltas and no signatures; the key and anthropic-version accepted but not checked. It has no
 * `/v1/messages/count_tokens` (404). Each request is answered by what it holds: a conversation
 * that ends in a tool result gets a text answer naming it, any other a call to the first tool.
 */
export interface LocalAnthropicUpstream extends FakeUpstream {
  answered: Array<Record<string, any>>;
}

export async function startLocalAnthropic(): Promise<LocalAnthropicUpstream> {
  const answered: Array<Record<string, any>> = [];
  let count = 0;
  const { origin, requests, close } = await startFakeServer(async (request, res) => {
    if (request.method !== 'POST' || request.path !== '/v1/messages' || !isObject(request.body)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('404 page not found');
    }
    const body = request.body;
    answered.push(body);
    const n = ++count;
    const last = (body.messages as Array<Record<string, any>>).at(-1);
    const result = Array.isArray(last?.content) ? last.content.find((block: any) => block.type === 'tool_result') : undefined;
    const tool = Array.isArray(body.tools) && body.tools.length ? (body.tools[0].name as string) : undefined;
    const thinking = { type: 'thinking', thinking: `local thought ${n}` };
    const answer = result || !tool ? { type: 'text', text: `done: ${result ? (typeof result.content === 'string' ? result.content : result.content.map((part: any) => part.text).join('')) : 'no tool'}` } : undefined;
    const call = answer ? undefined : { type: 'tool_use', id: `toolu_local_${n}`, name: tool!, input: { city: 'Paris' } };
    const stopReason = call ? 'tool_use' : 'end_turn';
    const usage = { input_tokens: 20, output_tokens: 10 };
    const message = { id: `msg_local_${n}`, type: 'message', role: 'assistant', model: body.model };
    if (body.stream !== true) return sendJson(res, 200, { ...message, content: [thinking, answer ?? call], stop_reason: stopReason, stop_sequence: null, usage });
    const stream = openEventStream(res, {}, {});
    const event = (type: string, data: Record<string, unknown>) => stream.frame(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    await event('message_start', { message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 20, output_tokens: 0 } } });
    await event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } });
    await event('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: thinking.thinking } });
    await event('content_block_stop', { index: 0 });
    if (call) {
      await event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
      await event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) } });
    } else {
      await event('content_block_start', { index: 1, content_block: { type: 'text', text: '' } });
      await event('content_block_delta', { index: 1, delta: { type: 'text_delta', text: answer!.text } });
    }
    await event('content_block_stop', { index: 1 });
    await event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 10 } });
    await event('message_stop', {});
    stream.end();
  });
  return { url: origin, requests, answered, close };
}
