import { invalidRequest } from '../../core/errors.js';
import { fileDataUrl } from '../../core/file-data.js';
import type { CanonicalRequest, FilePart, ImagePart, Message, TextPart, ToolChoice } from '../../core/request.js';
import { translatableOrRefuse } from '../../core/same-format-only.js';
import { setBackendWarnings } from '../../core/warnings.js';
import type { ChatRequestBody, ChatRequestContentPart, ChatRequestMessage, ChatRequestToolChoice } from './api.js';

type ChatMessage = ChatRequestMessage;

/** OpenAI's reasoning model families (o1, o3, o4-mini, gpt-5 …), the ones that take reasoning_effort. */
const REASONING_MODEL = /^(?:[\w.-]+\/)?(?:o\d|gpt-5)/i;

/** OpenAI's own model families, the ones served where `prompt_cache_key` is known. */
const OPENAI_MODEL = /^(?:[\w.-]+\/)?(?:o\d|gpt-|chatgpt-)/i;

/**
 * The Chat Completions body for a canonical request. Same-format requests forward the client's
 * body with the model renamed; streaming always asks for usage, since the ledger needs it.
 */
export function encodeChatRequest(request: CanonicalRequest, upstreamModel: string, stream: boolean): ChatRequestBody {
  const same = request.passthrough?.format === 'chat';
  // A same-format body is the client's own Chat request (its format decoder checked it), forwarded whole; the session's cache key when it names none.
  const cacheKey = same && request.promptCacheKey && OPENAI_MODEL.test(upstreamModel) ? { prompt_cache_key: request.promptCacheKey } : {};
  const body: ChatRequestBody = same ? ({ ...cacheKey, ...request.passthrough!.body, model: upstreamModel } as unknown as ChatRequestBody) : buildBody(request, upstreamModel);
  // Chat Completions has no top_k: https://platform.openai.com/docs/api-reference/chat/create
  const warnings = same ? [] : translatableOrRefuse(request);
  if (!same && request.topK !== undefined) warnings.push('top_k not sent: OpenAI has no such setting.');
  if (!same && request.reasoningDisplay) warnings.push(`thinking.display '${request.reasoningDisplay}' not applied: Chat Completions has no setting for how reasoning is shown.`);
  if (!same && hasImageDetail(request, 'original')) warnings.push("image detail 'original' not sent: Chat Completions takes low, high or auto.");
  setBackendWarnings(request, warnings);
  if (stream) {
    body.stream = true;
    body.stream_options = { ...(body.stream_options as object | undefined), include_usage: true };
  } else {
    delete body.stream;
    delete body.stream_options;
  }
  return body;
}

function buildBody(request: CanonicalRequest, model: string): ChatRequestBody {
  const messages: ChatMessage[] = [];
  // Mid-conversation system messages (Claude Code sends its environment as one after the first
  // user turn) are folded into the one leading system message, in order: many chat templates
  // (Qwen, Llama, Mistral …) refuse a system message anywhere but first. The top of the prompt,
  // rather than the neighbouring user turn, keeps the text's system authority and leaves the user's
  // own words as they were; a client that repeats the same conversation keeps the same prefix.
  const midConversation = request.messages.filter((message) => message.role === 'system').map((message) => joinText(textParts(message.content)));
  const system = [joinText(request.system), ...midConversation].filter((text) => text !== '').join('\n\n');
  if (system) messages.push({ role: 'system', content: system });
  request.messages.forEach((message, index) => {
    if (message.role !== 'system') messages.push(...encodeMessage(message, `messages[${index}]`));
  });
  const body: ChatRequestBody = { model, messages };
  if (request.tools.length) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: stripSchemaMeta(tool.parameters) },
    }));
    if (request.toolChoice) body.tool_choice = encodeToolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.maxOutputTokens !== undefined) body.max_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop?.length) body.stop = request.stop;
  // Chat servers refuse reasoning_effort for models that do not reason; send it only to those that do.
  if (request.reasoningEffort && REASONING_MODEL.test(model)) body.reasoning_effort = request.reasoningEffort;
  if (request.outputSchema) {
    const { name, schema, strict } = request.outputSchema;
    body.response_format = { type: 'json_schema', json_schema: { name, schema, ...(strict !== undefined ? { strict } : {}) } };
  } else if (request.jsonObject) {
    body.response_format = { type: 'json_object' };
  }
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty;
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty;
  // Some compatible servers refuse fields they do not know (Mistral, Groq); the cache key, a hint
  // only, goes to OpenAI's model families, as reasoning_effort goes to those that reason.
  if (request.promptCacheKey && OPENAI_MODEL.test(model)) body.prompt_cache_key = request.promptCacheKey;
  return body;
}

function encodeMessage(message: Message, path: string): ChatMessage[] {
  switch (message.role) {
    case 'system':
      return [{ role: 'system', content: joinText(message.content.filter((part): part is TextPart => part.type === 'text')) }];
    case 'user':
      return [{ role: 'user', content: encodeUserContent(message.content, path) }];
    case 'tool':
      return encodeToolResults(message);
    case 'assistant': {
      const text = joinText(message.content.filter((part): part is TextPart => part.type === 'text'));
      const toolCalls = message.content.flatMap((part) =>
        part.type === 'tool-call' ? [{ id: part.id, type: 'function' as const, function: { name: part.name, arguments: part.arguments } }] : [],
      );
      return [{ role: 'assistant', content: text || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }];
    }
  }
}

/** A lone text stays a plain string, which every OpenAI-compatible server accepts. */
function encodeUserContent(content: Message['content'], path: string): string | ChatRequestContentPart[] {
  const parts = content.flatMap((part, index) => (part.type === 'text' || part.type === 'image' || part.type === 'file' ? [{ part, index }] : []));
  if (parts.every(({ part }) => part.type === 'text')) return joinText(parts.map(({ part }) => part as TextPart));
  return parts.map(({ part, index }): ChatRequestContentPart =>
    part.type === 'text' ? { type: 'text', text: part.text } : part.type === 'image' ? imageUrl(part) : fileContent(part, `${path}.content[${index}]`),
  );
}

/** `detail` as Chat takes it (low, high, auto); 'original' is a Responses-only level, left to the server's default. */
const imageUrl = (part: ImagePart): ChatRequestContentPart => ({
  type: 'image_url',
  image_url: { url: part.url, ...(part.detail && part.detail !== 'original' ? { detail: part.detail } : {}) },
});

/**
 * Tool results as `tool` messages. A Chat tool message carries text only
 * (https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages), so images a
 * tool returned (a screenshot it read) follow in one user message after the results, each
 * introduced by the call it came from.
 */
function encodeToolResults(message: Message): ChatMessage[] {
  const results: ChatMessage[] = [];
  const images: ChatRequestContentPart[] = [];
  for (const part of message.content) {
    if (part.type !== 'tool-result') continue;
    results.push({ role: 'tool', tool_call_id: part.callId, content: joinText(part.content.filter((inner): inner is TextPart => inner.type === 'text')) });
    const pictures = part.content.filter((inner): inner is ImagePart => inner.type === 'image');
    if (pictures.length) images.push({ type: 'text', text: `The result of tool call ${part.callId} includes ${pictures.length === 1 ? 'this image' : 'these images'}:` }, ...pictures.map(imageUrl));
  }
  if (images.length) results.push({ role: 'user', content: images });
  return results;
}

/**
 * A `file` content part: inline data as a data: URL in `file_data`, or an OpenAI `file_id`
 * (https://platform.openai.com/docs/guides/pdf-files?api-mode=chat); a document given as text is
 * sent as its text. Chat Completions takes no file URL, and no other provider's file id: both are
 * refused, naming the part.
 */
function fileContent(part: FilePart, path: string): ChatRequestContentPart {
  const filename = part.filename ? { filename: part.filename } : {};
  const { source } = part;
  switch (source.kind) {
    case 'base64':
      return { type: 'file', file: { ...filename, file_data: fileDataUrl(part, source.data) } };
    case 'text':
      return { type: 'text', text: source.text };
    case 'url':
      throw invalidRequest(`${path}: Chat Completions takes a file only inline or by an OpenAI file id, not by URL; send the file's data instead.`, path);
    case 'file-id':
      if (source.provider !== 'openai') {
        throw invalidRequest(`${path}: the file id '${source.id}' was issued by ${source.provider}, and OpenAI cannot read another provider's files; send the file's data instead.`, path);
      }
      return { type: 'file', file: { ...filename, file_id: source.id } };
  }
}

const textParts = (parts: Message['content']): TextPart[] => parts.filter((part): part is TextPart => part.type === 'text');

const joinText = (parts: TextPart[]): string => parts.map((part) => part.text).join('\n\n');

function encodeToolChoice(choice: ToolChoice): ChatRequestToolChoice {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/** `$schema` and similar meta keys (sent by some clients) are refused by several compatible servers. */
export function stripSchemaMeta(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _schema, ...rest } = schema;
  return rest;
}

/** Whether any image, in a message or a tool result, asks for this detail. */
function hasImageDetail(request: CanonicalRequest, detail: ImagePart['detail']): boolean {
  return request.messages.some((message) =>
    message.content.some((part) => (part.type === 'image' && part.detail === detail) || (part.type === 'tool-result' && part.content.some((inner) => inner.type === 'image' && inner.detail === detail))),
  );
}
