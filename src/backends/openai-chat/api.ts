import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import { RouterError } from '../../core/errors.js';
import {
  checkedUpstream,
  items,
  name,
  nested,
  object,
  optionalArray,
  optionalIndex,
  optionalNumber,
  optionalObject,
  optionalString,
  string,
  type Json,
} from '../http/upstream-fields.js';

/**
 * The Chat Completions wire as this backend sees it: the body it sends (OpenAI's own request type)
 * and the fields of a reply or stream chunk its decoders read, checked. Compatible servers vary,
 * so what the decoders can do without (a tool call's index or id, a chunk's choices) is optional;
 * what would otherwise be made up (a tool call's name or arguments) is required.
 */

/** The body POSTed to /chat/completions; `stream` and `stream_options` are set per call. */
export type ChatRequestBody = ChatCompletionCreateParamsBase;
export type ChatRequestMessage = ChatCompletionMessageParam;
export type ChatRequestToolChoice = ChatCompletionToolChoiceOption;
export type ChatRequestContentPart = ChatCompletionContentPart;

// ---- Reply ---------------------------------------------------------------------------------

export interface ChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

export interface ChatReplyToolCall {
  id?: string | null;
  function: { name: string; arguments: string };
}

export interface ChatReplyMessage {
  content?: string | null;
  refusal?: string | null;
  /** DeepSeek, vLLM and others put reasoning beside the content under one of these names. */
  reasoning_content?: string | null;
  reasoning?: string | null;
  /** OpenRouter's reasoning blocks (reasoning-details.ts). */
  reasoning_details?: unknown[] | null;
  tool_calls?: ChatReplyToolCall[] | null;
}

export interface ChatReply {
  id?: string | null;
  /** Only the first choice is read (and checked). */
  choices?: [ChatReplyChoice?, ...unknown[]] | null;
  usage?: ChatUsage | null;
}

export interface ChatReplyChoice {
  /** Absent only in a 200 that carries an error; the decoder says so. */
  message?: ChatReplyMessage | null;
  finish_reason?: string | null;
}

/** A `chat.completion` body, checked where the decoder reads it. */
export function readChatReply(backend: string, raw: unknown): ChatReply {
  return checkedUpstream(backend, 'reply', raw, checkReply);
}

function checkReply(raw: unknown): ChatReply {
  const body = object(raw, '');
  optionalString(body.id, 'id');
  if (body.usage !== undefined && body.usage !== null) nested(body.usage, 'usage', checkUsage);
  const choice = optionalArray(body.choices, 'choices')?.[0];
  if (choice === undefined) return body as ChatReply;
  const first = object(choice, 'choices[0]');
  optionalString(first.finish_reason, 'choices[0].finish_reason');
  const message = optionalObject(first.message, 'choices[0].message');
  if (message === undefined) return body as ChatReply;
  optionalString(message.content, 'choices[0].message.content');
  optionalString(message.refusal, 'choices[0].message.refusal');
  optionalString(message.reasoning_content, 'choices[0].message.reasoning_content');
  optionalString(message.reasoning, 'choices[0].message.reasoning');
  optionalArray(message.reasoning_details, 'choices[0].message.reasoning_details');
  const calls = optionalArray(message.tool_calls, 'choices[0].message.tool_calls');
  if (calls) items(calls, 'choices[0].message.tool_calls', checkReplyToolCall);
  return body as ChatReply;
}

function checkReplyToolCall(call: Json): void {
  optionalString(call.id, 'id');
  const fn = object(call.function, 'function');
  name(fn.name, 'function.name');
  string(fn.arguments, 'function.arguments');
}

// ---- Stream --------------------------------------------------------------------------------

export interface ChatChunkToolCall {
  /** Absent from servers that send each call whole (Gemini's compatible API). */
  index?: number | null;
  /** On the delta that opens a call. */
  id?: string | null;
  /** `name` on the delta that opens a call (see openedCallName), `arguments` in pieces after. */
  function?: { name?: string | null; arguments?: string | null } | null;
}

export interface ChatChunkDelta {
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  /** OpenRouter's reasoning blocks, in pieces (reasoning-details.ts). */
  reasoning_details?: unknown[] | null;
  tool_calls?: ChatChunkToolCall[] | null;
}

export interface ChatChunkChoice {
  delta?: ChatChunkDelta | null;
  finish_reason?: string | null;
}

export interface ChatChunk {
  id?: string | null;
  /** Empty (or absent, from some servers) on the usage chunk; only the first choice is read. */
  choices?: [ChatChunkChoice?, ...unknown[]] | null;
  usage?: ChatUsage | null;
  /** Some servers report a failure mid-stream as a chunk with an error; nothing else is checked then. */
  error?: unknown;
}

/** One `chat.completion.chunk`, checked where the decoder reads it. */
export function readChatChunk(backend: string, raw: unknown): ChatChunk {
  return checkedUpstream(backend, 'stream chunk', raw, checkChunk);
}

function checkChunk(raw: unknown): ChatChunk {
  const chunk = object(raw, '');
  if (chunk.error !== undefined && chunk.error !== null) return chunk as ChatChunk;
  optionalString(chunk.id, 'id');
  if (chunk.usage !== undefined && chunk.usage !== null) nested(chunk.usage, 'usage', checkUsage);
  const choices = optionalArray(chunk.choices, 'choices');
  if (choices === undefined || choices.length === 0) return chunk as ChatChunk;
  const choice = object(choices[0], 'choices[0]');
  optionalString(choice.finish_reason, 'choices[0].finish_reason');
  const delta = optionalObject(choice.delta, 'choices[0].delta');
  if (delta === undefined) return chunk as ChatChunk;
  optionalString(delta.content, 'choices[0].delta.content');
  optionalString(delta.refusal, 'choices[0].delta.refusal');
  optionalString(delta.reasoning_content, 'choices[0].delta.reasoning_content');
  optionalString(delta.reasoning, 'choices[0].delta.reasoning');
  optionalArray(delta.reasoning_details, 'choices[0].delta.reasoning_details');
  const calls = optionalArray(delta.tool_calls, 'choices[0].delta.tool_calls');
  if (calls) items(calls, 'choices[0].delta.tool_calls', checkChunkToolCall);
  return chunk as ChatChunk;
}

function checkChunkToolCall(call: Json): void {
  optionalIndex(call.index, 'index');
  optionalString(call.id, 'id');
  const fn = optionalObject(call.function, 'function');
  if (fn === undefined) return;
  optionalString(fn.name, 'function.name');
  optionalString(fn.arguments, 'function.arguments');
}

/**
 * The name on the delta that opens a tool call. Only the stream's state says which delta opens a
 * call, so this is checked where the decoder opens it: a call without a name is a 502, not a call
 * to "".
 */
export function openedCallName(backend: string, delta: ChatChunkDelta, call: ChatChunkToolCall): string {
  const called = call.function?.name;
  if (called) return called;
  const path = `choices[0].delta.tool_calls[${delta.tool_calls?.indexOf(call) ?? 0}].function.name`;
  throw new RouterError(502, 'upstream', `Backend '${backend}' sent a stream chunk whose ${path} ${called === '' ? 'is empty' : 'is missing'}.`);
}

function checkUsage(value: unknown): void {
  const usage = object(value, '');
  optionalNumber(usage.prompt_tokens, 'prompt_tokens');
  optionalNumber(usage.completion_tokens, 'completion_tokens');
  const input = optionalObject(usage.prompt_tokens_details, 'prompt_tokens_details');
  if (input) optionalNumber(input.cached_tokens, 'prompt_tokens_details.cached_tokens');
  const output = optionalObject(usage.completion_tokens_details, 'completion_tokens_details');
  if (output) optionalNumber(output.reasoning_tokens, 'completion_tokens_details.reasoning_tokens');
}
