import { invalidRequest } from '../../core/errors.js';
import { fileDataUrl } from '../../core/file-data.js';
import { metadataOf } from '../../core/provider-metadata.js';
import type { CanonicalRequest, FilePart, ImagePart, Message, Part, TextPart } from '../../core/request.js';
import { asSystemReminder, systemPromptEnd } from '../../core/system-notes.js';
import { breakpointOf } from '../../catalog/index.js';
import type { ChatRequestContentPart, ChatRequestMessage } from './api.js';

type ChatMessage = ChatRequestMessage;

/** A content part, with the breakpoint an upstream that takes Anthropic-style cache_control reads on it. */
export type MarkedPart = ChatRequestContentPart & { cache_control?: unknown };

export interface ChatContentOptions {
  /**
   * The upstream takes `cache_control` on content parts (OpenRouter, for its Anthropic and Gemini
   * models: https://openrouter.ai/docs/features/prompt-caching). Every content is then a list of
   * parts, whatever it holds, so a message reads the same whether or not it carries a breakpoint on
   * this turn, and the client's breakpoints (`providerMetadata.anthropic.cacheControl`) stay on
   * their parts. Otherwise a lone text is a plain string, which every compatible server takes.
   */
  cacheControl: boolean;
  /**
   * The target takes OpenAI's explicit `prompt_cache_breakpoint` (GPT-5.6 and later,
   * src/catalog/prompt-cache-controls.ts): the client's breakpoints stay on their parts, and a
   * content holding one stays a list of parts.
   */
  breakpoints?: boolean;
}

/**
 * The conversation as Chat messages. System text is placed as core/system-notes.ts says: joined
 * to the leading system message up to the first assistant turn, a user-side note after it. A note
 * goes into the user message that follows it in its run of non-assistant messages (after any tool
 * results, which must follow their calls), else the user message before it, else a user message
 * of its own: never two user messages in a row where the client sent none, and decided only by
 * messages that arrive together in one turn.
 */
export function encodeChatMessages(request: CanonicalRequest, options: ChatContentOptions): ChatMessage[] {
  const content = contentWriter(options);
  const end = systemPromptEnd(request.messages);
  const conversation = options.cacheControl ? withJoinedBreakpointsMoved(request.messages, end) : request.messages;
  const leading = [...request.system, ...conversation.slice(0, end).flatMap((message) => (message.role === 'system' ? textParts(message.content) : []))].filter((part) => part.text !== '');
  const messages: ChatMessage[] = [];
  if (leading.length) messages.push({ role: 'system', content: content.listed(leading) ? leading.map(content.text) : leading.map((part) => part.text).join('\n\n') } as ChatMessage);

  let notes: MarkedPart[] = [];
  const placeNotes = (): void => {
    if (!notes.length) return;
    const last = messages.at(-1);
    if (last?.role === 'user') last.content = [...asParts(last.content), ...notes];
    else messages.push({ role: 'user', content: options.cacheControl || notes.length > 1 ? notes : (notes[0] as { text: string }).text });
    notes = [];
  };
  conversation.forEach((message, index) => {
    switch (message.role) {
      case 'system': {
        if (index < end) return;
        const parts = textParts(message.content);
        const text = joinText(parts);
        if (text) notes.push({ type: 'text', text: asSystemReminder(text), ...content.marker(parts.at(-1)!) });
        return;
      }
      case 'user': {
        const encoded = content.user(message.content, `messages[${index}]`);
        messages.push({ role: 'user', content: notes.length ? [...notes, ...asParts(encoded)] : encoded });
        notes = [];
        return;
      }
      case 'tool':
        messages.push(...content.toolResults(message));
        return;
      case 'assistant':
        placeNotes();
        messages.push(content.assistant(message));
        return;
    }
  });
  placeNotes();
  return messages;
}

/**
 * A breakpoint on system text that joins the system message marked, in the client's order, the
 * messages before it as well (Claude Code marks its environment, sent after the first user
 * message). Moved to the last part of the message before it, the prefix it marks still takes in
 * all the client's did, and the breakpoints stay as many as the client set.
 */
function withJoinedBreakpointsMoved(messages: readonly Message[], end: number): Message[] {
  const moved = [...messages];
  let before = -1;
  for (let index = 0; index < end; index++) {
    const message = moved[index]!;
    if (message.role !== 'system') {
      before = index;
      continue;
    }
    const marked = message.content.findLastIndex((part) => cacheControlOf(part) !== undefined);
    const target = before === -1 ? undefined : moved[before]!;
    const last = target?.content.findLastIndex((part) => part.type === 'text' || part.type === 'image' || part.type === 'file') ?? -1;
    if (marked === -1 || !target || last === -1) continue;
    const control = cacheControlOf(message.content[marked]!);
    moved[index] = { ...message, content: message.content.map((part, at) => (at === marked ? withCacheControl(part, undefined) : part)) };
    moved[before] = { ...target, content: target.content.map((part, at) => (at === last ? withCacheControl(part, control) : part)) };
  }
  return moved;
}

const cacheControlOf = (part: Part): unknown => {
  const control = metadataOf(part.providerMetadata, 'anthropic')?.cacheControl;
  return control === null ? undefined : control;
};

function withCacheControl(part: Part, control: unknown): Part {
  const { cacheControl: _old, ...anthropic } = metadataOf(part.providerMetadata, 'anthropic') ?? {};
  return { ...part, providerMetadata: { ...part.providerMetadata, anthropic: control === undefined ? anthropic : { ...anthropic, cacheControl: control } } } as Part;
}

const asParts = (content: ChatMessage['content']): MarkedPart[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : ((content ?? []) as MarkedPart[]));

function contentWriter(options: ChatContentOptions) {
  const marker = (part: Part): { cache_control?: unknown; prompt_cache_breakpoint?: { mode: 'explicit' } } => {
    const cacheControl = options.cacheControl ? cacheControlOf(part) : undefined;
    const breakpoint = options.breakpoints ? breakpointOf(part) : undefined;
    return { ...(cacheControl === undefined ? {} : { cache_control: cacheControl }), ...(breakpoint ? { prompt_cache_breakpoint: breakpoint as { mode: 'explicit' } } : {}) };
  };
  /** Whether these parts go as a list: always for a cache_control upstream, and where one holds a breakpoint the target takes. */
  const listed = (parts: readonly Part[]): boolean => options.cacheControl || (options.breakpoints === true && parts.some((part) => breakpointOf(part) !== undefined));
  const text = (part: TextPart): MarkedPart => ({ type: 'text', text: part.text, ...marker(part) });
  /** `detail` as Chat takes it (low, high, auto); 'original' is a Responses-only level, left to the server's default. */
  const image = (part: ImagePart): MarkedPart => ({ type: 'image_url', image_url: { url: part.url, ...(part.detail && part.detail !== 'original' ? { detail: part.detail } : {}) }, ...marker(part) });

  /** A lone text stays a plain string, which every OpenAI-compatible server accepts. */
  const user = (parts: Part[], path: string): string | MarkedPart[] => {
    const kept = parts.flatMap((part, index) => (part.type === 'text' || part.type === 'image' || part.type === 'file' ? [{ part, index }] : []));
    if (!listed(parts) && kept.every(({ part }) => part.type === 'text')) return joinText(kept.map(({ part }) => part as TextPart));
    return kept.map(({ part, index }) =>
      part.type === 'text' ? text(part) : part.type === 'image' ? image(part) : { ...fileContent(part as FilePart, `${path}.content[${index}]`), ...marker(part) },
    );
  };

  /**
   * Tool results as `tool` messages. A Chat tool message carries text only
   * (https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages), so images a
   * tool returned (a screenshot it read) follow in one user message after the results, each
   * introduced by the call it came from.
   */
  const toolResults = (message: Message): ChatMessage[] => {
    const results: ChatMessage[] = [];
    const images: MarkedPart[] = [];
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const output = joinText(part.content.filter((inner): inner is TextPart => inner.type === 'text'));
      results.push({ role: 'tool', tool_call_id: part.callId, content: options.cacheControl ? [{ type: 'text', text: output, ...marker(part) } as ChatRequestContentPart & { type: 'text' }] : output });
      const pictures = part.content.filter((inner): inner is ImagePart => inner.type === 'image');
      if (pictures.length) images.push({ type: 'text', text: `The result of tool call ${part.callId} includes ${pictures.length === 1 ? 'this image' : 'these images'}:` }, ...pictures.map(image));
    }
    if (images.length) {
      // The images are part of their results: a breakpoint the client set on a result goes after
      // them, where it ends the same prompt it ends on Anthropic (the result with its images).
      const marked = results.findLastIndex((result) => Array.isArray(result.content) && (result.content as MarkedPart[])[0]?.cache_control !== undefined);
      if (marked !== -1) {
        const { cache_control: control, ...unmarked } = (results[marked]!.content as MarkedPart[])[0]!;
        results[marked] = { ...results[marked]!, content: [unmarked] } as ChatMessage;
        images[images.length - 1] = { ...images.at(-1)!, cache_control: control };
      }
      results.push({ role: 'user', content: images });
    }
    return results;
  };

  const assistant = (message: Message): ChatMessage => {
    const texts = textParts(message.content);
    const toolCalls = message.content.flatMap((part) => (part.type === 'tool-call' ? [{ id: part.id, type: 'function' as const, function: { name: part.name, arguments: part.arguments } }] : []));
    const said = listed(texts) ? (texts.length ? texts.map(text) : null) : joinText(texts) || null;
    return { role: 'assistant', content: said as string | null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
  };

  return { marker, listed, text, user, toolResults, assistant };
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
