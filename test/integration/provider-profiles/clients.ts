import { parseSse } from '../../helpers/sse-frames.js';
import { ReasoningDetailsJoiner } from '../../../src/backends/openai-chat/reasoning-details.js';

/**
 * Each client format's side of a two-turn tool loop, over raw HTTP: the first request offers a
 * tool, the reply (streamed or not) is read back whole, and the second request replays the
 * assistant turn as that format's clients do (a Chat message, Responses output items with their
 * encrypted reasoning, Anthropic content blocks with their thinking) with the tool's result.
 */
export type ClientFormat = 'chat' | 'responses' | 'messages' | 'gemini';
/** The formats the provider-profile checks run; the provider matrix adds Gemini's API. */
export const CLIENTS: readonly ClientFormat[] = ['chat', 'responses', 'messages'];

const SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const PATHS: Record<Exclude<ClientFormat, 'gemini'>, string> = { chat: '/v1/chat/completions', responses: '/v1/responses', messages: '/v1/messages' };

/** Gemini's API names the model and whether it streams in the path, and its key in its own header. */
function geminiCall(key: string, body: Record<string, unknown>, stream: boolean): { url: string; headers: Record<string, string>; body: string } {
  const { model, ...rest } = body;
  return { url: `/v1beta/models/${String(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, headers: { 'content-type': 'application/json', 'x-goog-api-key': key }, body: JSON.stringify(rest) };
}

export interface Turn {
  status: number;
  /** The reply read back whole (a streamed one assembled), or the error body. */
  reply: Record<string, any>;
  /** svc_meta.warnings, from the body or the stream's last event. */
  warnings: string[];
  raw: string;
}

export async function send(origin: string, key: string, client: ClientFormat, body: Record<string, unknown>, stream: boolean): Promise<Turn> {
  const call =
    client === 'gemini'
      ? geminiCall(key, body, stream)
      : { url: PATHS[client], headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'anthropic-version': '2023-06-01' }, body: JSON.stringify({ ...body, stream }) };
  const response = await fetch(origin + call.url, { method: 'POST', headers: call.headers, body: call.body });
  const raw = await response.text();
  if (response.status !== 200 || !stream) {
    let reply: Record<string, any>;
    try {
      reply = JSON.parse(raw) as Record<string, any>;
    } catch {
      reply = { text: raw };
    }
    return { status: response.status, reply, warnings: reply.svc_meta?.warnings ?? [], raw };
  }
  const { reply, warnings } = ASSEMBLE[client](raw);
  return { status: 200, reply, warnings, raw };
}

/** The first request of the loop: a question and one tool, in the client's format. */
export function firstRequest(client: ClientFormat, model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const question = 'What is the weather in Paris?';
  switch (client) {
    case 'chat':
      return { model, max_tokens: 200, messages: [{ role: 'user', content: question }], tools: [{ type: 'function', function: { name: 'get_weather', parameters: SCHEMA } }], ...extra };
    case 'responses':
      return { model, max_output_tokens: 200, include: ['reasoning.encrypted_content'], input: [{ role: 'user', content: question }], tools: [{ type: 'function', name: 'get_weather', parameters: SCHEMA }], ...extra };
    case 'messages':
      return { model, max_tokens: 200, messages: [{ role: 'user', content: question }], tools: [{ name: 'get_weather', input_schema: SCHEMA }], ...extra };
    case 'gemini':
      // `model` goes in the path (see send).
      return { model, generationConfig: { maxOutputTokens: 200 }, contents: [{ role: 'user', parts: [{ text: question }] }], tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: SCHEMA }] }], ...extra };
  }
}

/** The second request: the first, the assistant's turn replayed as received, and the tool's result. */
export function secondRequest(client: ClientFormat, first: Record<string, any>, reply: Record<string, any>, result: string): Record<string, unknown> {
  switch (client) {
    case 'chat': {
      const message = reply.choices[0].message;
      return { ...first, messages: [...first.messages, message, { role: 'tool', tool_call_id: message.tool_calls[0].id, content: result }] };
    }
    case 'responses': {
      const call = reply.output.find((item: any) => item.type === 'function_call');
      return { ...first, input: [...first.input, ...reply.output, { type: 'function_call_output', call_id: call.call_id, output: result }] };
    }
    case 'messages': {
      const use = reply.content.find((block: any) => block.type === 'tool_use');
      return { ...first, messages: [...first.messages, { role: 'assistant', content: reply.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: result }] }] };
    }
    case 'gemini': {
      const content = reply.candidates[0].content;
      const call = content.parts.find((part: any) => part.functionCall).functionCall;
      return { ...first, contents: [...first.contents, content, { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name, response: { output: result } } }] }] };
    }
  }
}

/** The final answer's text, in any format. */
export function answerText(client: ClientFormat, reply: Record<string, any>): string {
  if (client === 'chat') return reply.choices?.[0]?.message?.content ?? '';
  if (client === 'responses') return (reply.output ?? []).filter((item: any) => item.type === 'message').flatMap((item: any) => item.content.map((part: any) => part.text)).join('');
  if (client === 'gemini') return (reply.candidates?.[0]?.content?.parts ?? []).filter((part: any) => !part.thought && part.text).map((part: any) => part.text).join('');
  return (reply.content ?? []).filter((block: any) => block.type === 'text').map((block: any) => block.text).join('');
}

/** The readable reasoning a reply showed its client. */
export function shownReasoning(client: ClientFormat, reply: Record<string, any>): string {
  if (client === 'chat') return reply.choices?.[0]?.message?.reasoning_content ?? reply.choices?.[0]?.message?.reasoning ?? '';
  if (client === 'responses') return (reply.output ?? []).filter((item: any) => item.type === 'reasoning').flatMap((item: any) => item.summary.map((part: any) => part.text)).join('');
  if (client === 'gemini') return (reply.candidates?.[0]?.content?.parts ?? []).filter((part: any) => part.thought).map((part: any) => part.text).join('');
  return (reply.content ?? []).filter((block: any) => block.type === 'thinking').map((block: any) => block.thinking).join('');
}

const ASSEMBLE: Record<ClientFormat, (raw: string) => { reply: Record<string, any>; warnings: string[] }> = {
  chat(raw) {
    const message: Record<string, any> = { role: 'assistant', content: null };
    const details = new ReasoningDetailsJoiner();
    const calls: Array<Record<string, any>> = [];
    let warnings: string[] = [];
    for (const frame of parseSse(raw)) {
      if (frame.data === '[DONE]') continue;
      const chunk = JSON.parse(frame.data);
      if (chunk.svc_meta?.warnings) warnings = chunk.svc_meta.warnings;
      const delta = chunk.choices?.[0]?.delta ?? {};
      for (const field of ['content', 'reasoning_content', 'reasoning']) if (typeof delta[field] === 'string' && delta[field]) message[field] = (message[field] ?? '') + delta[field];
      if (Array.isArray(delta.reasoning_details)) details.add(delta.reasoning_details);
      for (const call of delta.tool_calls ?? []) {
        const held = (calls[call.index] ??= { id: call.id, type: 'function', function: { name: call.function?.name, arguments: '' } });
        held.function.arguments += call.function?.arguments ?? '';
      }
    }
    if (details.size) message.reasoning_details = details.take();
    if (calls.length) message.tool_calls = calls;
    return { reply: { choices: [{ message }] }, warnings };
  },
  responses(raw) {
    const completed = parseSse(raw).find((frame) => frame.event === 'response.completed');
    const response = JSON.parse(completed!.data).response;
    return { reply: response, warnings: response.svc_meta?.warnings ?? [] };
  },
  messages(raw) {
    const content: Array<Record<string, any>> = [];
    let warnings: string[] = [];
    for (const frame of parseSse(raw)) {
      const event = JSON.parse(frame.data);
      if (event.type === 'content_block_start') content[event.index] = { ...event.content_block, ...(event.content_block.type === 'tool_use' ? { input: '' } : {}) };
      if (event.type === 'content_block_delta') {
        const block = content[event.index]!;
        const { delta } = event;
        if (delta.type === 'text_delta') block.text += delta.text;
        if (delta.type === 'thinking_delta') block.thinking += delta.thinking;
        if (delta.type === 'signature_delta') block.signature += delta.signature;
        if (delta.type === 'input_json_delta') block.input += delta.partial_json;
      }
      if (event.type === 'content_block_stop' && content[event.index]?.type === 'tool_use') content[event.index]!.input = JSON.parse(content[event.index]!.input || '{}');
      if (event.svc_meta?.warnings) warnings = event.svc_meta.warnings;
    }
    return { reply: { content }, warnings };
  },
  gemini(raw) {
    // Every chunk's parts in order, as Google's SDKs keep a streamed turn; svc_meta rides on the last chunk.
    const parts: Array<Record<string, any>> = [];
    let warnings: string[] = [];
    for (const frame of parseSse(raw)) {
      const chunk = JSON.parse(frame.data);
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
      if (chunk.svc_meta?.warnings) warnings = chunk.svc_meta.warnings;
    }
    return { reply: { candidates: [{ content: { role: 'model', parts } }] }, warnings };
  },
};
