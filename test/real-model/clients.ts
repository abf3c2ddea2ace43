import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

/**
 * The three client formats, each spoken by its official SDK, behind one shape so a case can run
 * for every format: a conversation of neutral turns goes in, the answer comes back read from the
 * format's own fields (its finish word, its usage names), streamed or not.
 */

export const CLIENT_FORMATS = ['chat', 'messages', 'responses'] as const;
export type ClientFormatName = (typeof CLIENT_FORMATS)[number];

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text, as the format carries it (Anthropic's object input is written back to text). */
  arguments: string;
}

export type Turn =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text?: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; callId: string; name: string; output: string };

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: { type: 'object'; properties: Record<string, unknown>; required: string[] };
}

export interface Ask {
  model: string;
  system?: string;
  turns: Turn[];
  tools?: ToolDefinition[];
  maxTokens?: number;
  temperature?: number;
  seed?: number;
  stream: boolean;
  signal?: AbortSignal;
  /** Streamed: called with each piece of text as it arrives. */
  onText?: (text: string) => void;
}

/** Usage in one shape: all input tokens (cached included), the cached part, output tokens. */
export interface Counted {
  input: number;
  cached: number;
  output: number;
}

export interface Answer {
  text: string;
  toolCalls: ToolCall[];
  /** The format's own word for the end: finish_reason, stop_reason, or the response status (with its incomplete reason). */
  finish: string;
  /** The end in common terms. */
  ended: 'stop' | 'length' | 'tool-calls' | 'other';
  usage: Counted;
  /** Streamed: the event (or chunk) types in order; the last is the format's terminal one. */
  events: string[];
  /** The model the answer names. */
  model: string;
  /** The answer's id, in the format's own shape (`chatcmpl-…`, `msg_…`, `resp_…`). */
  id: string;
  /** A Responses stream that ended with `response.failed`: its error message. */
  error?: string;
}

export interface Clients {
  chat: OpenAI;
  messages: Anthropic;
}

export function clientsFor(origin: string, key: string): Clients {
  return {
    chat: new OpenAI({ apiKey: key, baseURL: `${origin}/v1`, maxRetries: 0 }),
    messages: new Anthropic({ apiKey: key, baseURL: origin, maxRetries: 0 }),
  };
}

export function ask(clients: Clients, format: ClientFormatName, request: Ask): Promise<Answer> {
  switch (format) {
    case 'chat':
      return askChat(clients.chat, request);
    case 'messages':
      return askMessages(clients.messages, request);
    case 'responses':
      return askResponses(clients.chat, request);
  }
}

const options = (request: Ask) => (request.signal ? { signal: request.signal } : {});

// ---- OpenAI Chat Completions -------------------------------------------------------------------

function chatMessages(request: Ask): OpenAI.Chat.ChatCompletionMessageParam[] {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = request.system ? [{ role: 'system', content: request.system }] : [];
  for (const turn of request.turns) {
    if (turn.role === 'user') messages.push({ role: 'user', content: turn.text });
    else if (turn.role === 'tool') messages.push({ role: 'tool', tool_call_id: turn.callId, content: turn.output });
    else
      messages.push({
        role: 'assistant',
        content: turn.text ?? null,
        ...(turn.toolCalls?.length ? { tool_calls: turn.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })) } : {}),
      });
  }
  return messages;
}

const chatEnded = (reason: string | null | undefined): Answer['ended'] => (reason === 'stop' ? 'stop' : reason === 'length' ? 'length' : reason === 'tool_calls' ? 'tool-calls' : 'other');

function chatUsage(usage: OpenAI.CompletionUsage | undefined | null): Counted {
  return { input: usage?.prompt_tokens ?? -1, cached: usage?.prompt_tokens_details?.cached_tokens ?? 0, output: usage?.completion_tokens ?? -1 };
}

async function askChat(client: OpenAI, request: Ask): Promise<Answer> {
  const params = {
    model: request.model,
    messages: chatMessages(request),
    ...(request.tools ? { tools: request.tools.map((tool) => ({ type: 'function' as const, function: tool })) } : {}),
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
  };
  if (!request.stream) {
    const completion = await client.chat.completions.create(params, options(request));
    const choice = completion.choices[0]!;
    return {
      text: choice.message.content ?? '',
      toolCalls: (choice.message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [])),
      finish: choice.finish_reason,
      ended: chatEnded(choice.finish_reason),
      usage: chatUsage(completion.usage),
      events: [],
      model: completion.model,
      id: completion.id,
    };
  }
  const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } }, options(request));
  let text = '';
  let model = '';
  let id = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  const calls: ToolCall[] = [];
  const events: string[] = [];
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    events.push(chunk.usage ? 'usage' : choice?.finish_reason ? 'finish' : 'delta');
    model ||= chunk.model;
    id ||= chunk.id;
    if (chunk.usage) usage = chunk.usage;
    if (!choice) continue;
    if (choice.delta.content) request.onText?.(choice.delta.content);
    text += choice.delta.content ?? '';
    for (const delta of choice.delta.tool_calls ?? []) {
      const call = (calls[delta.index] ??= { id: '', name: '', arguments: '' });
      call.id ||= delta.id ?? '';
      call.name += delta.function?.name ?? '';
      call.arguments += delta.function?.arguments ?? '';
    }
    finish = choice.finish_reason ?? finish;
  }
  return { text, toolCalls: calls.filter(Boolean), finish: finish ?? '', ended: chatEnded(finish), usage: chatUsage(usage), events, model, id };
}

// ---- Anthropic Messages ------------------------------------------------------------------------

function anthropicMessages(request: Ask): Anthropic.MessageParam[] {
  const messages: Anthropic.MessageParam[] = [];
  for (const turn of request.turns) {
    if (turn.role === 'user') messages.push({ role: 'user', content: turn.text });
    else if (turn.role === 'assistant') {
      const content: Anthropic.ContentBlockParam[] = [];
      if (turn.text) content.push({ type: 'text', text: turn.text });
      for (const call of turn.toolCalls ?? []) content.push({ type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(call.arguments || '{}') });
      messages.push({ role: 'assistant', content });
    } else {
      const result: Anthropic.ToolResultBlockParam = { type: 'tool_result', tool_use_id: turn.callId, content: turn.output };
      const last = messages.at(-1);
      // Results for one turn's calls go back together, in one user message.
      if (last?.role === 'user' && Array.isArray(last.content) && last.content.every((block) => block.type === 'tool_result')) last.content.push(result);
      else messages.push({ role: 'user', content: [result] });
    }
  }
  return messages;
}

const messagesEnded = (reason: string | null | undefined): Answer['ended'] => (reason === 'end_turn' ? 'stop' : reason === 'max_tokens' ? 'length' : reason === 'tool_use' ? 'tool-calls' : 'other');

function messagesUsage(usage: Anthropic.Usage): Counted {
  const cached = usage.cache_read_input_tokens ?? 0;
  return { input: usage.input_tokens + cached + (usage.cache_creation_input_tokens ?? 0), cached, output: usage.output_tokens };
}

function messageAnswer(message: Anthropic.Message, events: string[]): Answer {
  return {
    text: message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
    toolCalls: message.content.flatMap((block) => (block.type === 'tool_use' ? [{ id: block.id, name: block.name, arguments: JSON.stringify(block.input) }] : [])),
    finish: message.stop_reason ?? '',
    ended: messagesEnded(message.stop_reason),
    usage: messagesUsage(message.usage),
    events,
    model: message.model,
    id: message.id,
  };
}

async function askMessages(client: Anthropic, request: Ask): Promise<Answer> {
  const params: Anthropic.MessageCreateParamsNonStreaming = {
    model: request.model,
    max_tokens: request.maxTokens ?? 256,
    messages: anthropicMessages(request),
    ...(request.system ? { system: request.system } : {}),
    ...(request.tools ? { tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })) } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
  };
  if (!request.stream) return messageAnswer(await client.messages.create(params, options(request)), []);
  const stream = client.messages.stream(params, options(request));
  const events: string[] = [];
  for await (const event of stream) {
    events.push(event.type);
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') request.onText?.(event.delta.text);
  }
  return messageAnswer(await stream.finalMessage(), events);
}

// ---- OpenAI Responses --------------------------------------------------------------------------

function responsesInput(request: Ask): OpenAI.Responses.ResponseInputItem[] {
  const input: OpenAI.Responses.ResponseInputItem[] = [];
  for (const turn of request.turns) {
    if (turn.role === 'user') input.push({ role: 'user', content: turn.text });
    else if (turn.role === 'tool') input.push({ type: 'function_call_output', call_id: turn.callId, output: turn.output });
    else {
      // Typed, as Codex sends it: llama.cpp's server refuses an untyped assistant item.
      if (turn.text) input.push({ type: 'message', role: 'assistant', content: turn.text });
      for (const call of turn.toolCalls ?? []) input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments });
    }
  }
  return input;
}

function responseAnswer(response: OpenAI.Responses.Response, events: string[]): Answer {
  const toolCalls = response.output.flatMap((item) => (item.type === 'function_call' ? [{ id: item.call_id, name: item.name, arguments: item.arguments }] : []));
  const reason = response.incomplete_details?.reason;
  const finish = response.status === 'incomplete' ? `incomplete:${reason ?? ''}` : (response.status ?? '');
  const failed = response.status === 'failed' ? { error: response.error?.message ?? '' } : {};
  const ended: Answer['ended'] = response.status === 'incomplete' ? (reason === 'max_output_tokens' ? 'length' : 'other') : toolCalls.length ? 'tool-calls' : response.status === 'completed' ? 'stop' : 'other';
  const usage = response.usage;
  return {
    text: response.output.map((item) => (item.type === 'message' ? item.content.map((part) => (part.type === 'output_text' ? part.text : '')).join('') : '')).join(''),
    toolCalls,
    finish,
    ended,
    usage: { input: usage?.input_tokens ?? -1, cached: usage?.input_tokens_details?.cached_tokens ?? 0, output: usage?.output_tokens ?? -1 },
    events,
    model: response.model,
    id: response.id,
    ...failed,
  };
}

async function askResponses(client: OpenAI, request: Ask): Promise<Answer> {
  const params = {
    model: request.model,
    input: responsesInput(request),
    ...(request.system ? { instructions: request.system } : {}),
    ...(request.tools ? { tools: request.tools.map((tool) => ({ type: 'function' as const, name: tool.name, description: tool.description, parameters: tool.parameters, strict: false })) } : {}),
    ...(request.maxTokens !== undefined ? { max_output_tokens: request.maxTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
  };
  if (!request.stream) return responseAnswer(await client.responses.create(params, options(request)), []);
  const stream = await client.responses.create({ ...params, stream: true }, options(request));
  const events: string[] = [];
  let final: OpenAI.Responses.Response | undefined;
  for await (const event of stream) {
    events.push(event.type);
    if (event.type === 'response.output_text.delta') request.onText?.(event.delta);
    if (event.type === 'response.completed' || event.type === 'response.incomplete' || event.type === 'response.failed') final = event.response;
  }
  if (!final) throw new Error(`the Responses stream ended without a terminal event: ${events.join(', ')}`);
  return responseAnswer(final, events);
}
