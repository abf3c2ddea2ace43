import { forEachBodyText, forEachJsonText, rewriteBodyText, rewriteJsonText, type Rewrite, type Visit } from './client-body-text.js';
import { mediaTypeFromName } from './file-data.js';
import type { CanonicalRequest, FilePart, ImagePart, Message, Part, TextPart, ToolSpec } from './request.js';
import { readDataUrl, readPayload, writePayload } from './text-payload.js';

/**
 * A request's text, wherever it is: every text a model reads (messages, the system prompt, tool
 * definitions, tool calls' arguments and results, documents and text files however they are given,
 * an output schema), in both forms an upstream may be sent, the canonical request (translated) and
 * the client's own body (`forwardBody`, forwarded to a same-format upstream). Reading walks the
 * body the client sent when there is one (core/client-body-text.ts), so places are named as in the
 * client's own request (`messages[2]`, `input[4]`, `system`, `tools[0]`); rewriting changes both
 * forms alike, copying what it changes and never the client's objects.
 *
 * A file is read as the text it holds, decoded (a base64 or percent-encoded data URL, Anthropic's
 * base64 source) when it is text (core/text-payload.ts), and written back the same way when
 * rewritten. Left alone, as not text or not the router's to change: binary files (images, PDFs,
 * audio), and reasoning (signed or sealed by the upstream that wrote it: a changed character
 * invalidates it). The conversation (`messages`, `input`, `contents`) is walked last: it grows at
 * its end turn after turn, so what is walked before it is walked in the same order every turn.
 */

/** Calls `visit` with each piece of text and where in the request it is. */
export function forEachRequestText(request: CanonicalRequest, visit: Visit): void {
  const body = request.forwardBody?.body;
  if (body) return forEachBodyText(body, visit);
  for (const part of request.system) visit(part.text, 'system');
  request.tools.forEach((tool, index) => {
    const where = `tools[${index}]`;
    if (tool.description !== undefined) visit(tool.description, where);
    forEachJsonText(tool.parameters, where, visit);
  });
  if (request.outputSchema) forEachJsonText(request.outputSchema.schema, 'output schema', visit);
  for (const stop of request.stop ?? []) visit(stop, 'stop');
  request.messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    for (const part of message.content) visitPart(part, where, visit);
  });
}

/**
 * Replaces each piece of text with what `rewrite` makes of it, in the canonical request and in the
 * body a same-format upstream is sent. `rewrite` returns its argument itself when nothing changes.
 */
export function rewriteRequestText(request: CanonicalRequest, rewrite: Rewrite): void {
  if (request.forwardBody) {
    const body = rewriteBodyText(request.forwardBody.body, rewrite);
    if (body !== request.forwardBody.body) request.forwardBody.body = body;
  }
  const system = mapList(request.system, (part) => mapText(part, rewrite));
  if (system !== request.system) request.system = system;
  const tools = mapList(request.tools, (tool) => mapTool(tool, rewrite));
  if (tools !== request.tools) request.tools = tools;
  if (request.deferredTools) {
    const held = mapList(request.deferredTools, (tool) => mapTool(tool, rewrite));
    if (held !== request.deferredTools) request.deferredTools = held;
  }
  if (request.outputSchema) {
    const schema = rewriteJsonText(request.outputSchema.schema, rewrite);
    if (schema !== request.outputSchema.schema) request.outputSchema = { ...request.outputSchema, schema };
  }
  if (request.stop) {
    const stop = mapList(request.stop, rewrite);
    if (stop !== request.stop) request.stop = stop;
  }
  const messages = mapList(request.messages, (message) => {
    const content = mapList(message.content, (part) => mapPart(part, rewrite));
    return content === message.content ? message : ({ ...message, content } as Message);
  });
  if (messages !== request.messages) request.messages = messages;
}

function mapList<T>(list: T[], map: (item: T) => T): T[] {
  let copy: T[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const next = map(list[i]!);
    if (next !== list[i]) (copy ??= list.slice())[i] = next;
  }
  return copy ?? list;
}

function visitPart(part: Part, where: string, visit: Visit): void {
  switch (part.type) {
    case 'text':
      return visit(part.text, where);
    case 'tool-call':
      return visit(part.arguments, where);
    case 'tool-result':
      for (const inner of part.content) visitPart(inner, where, visit);
      return;
    case 'image': {
      const text = imageText(part.url);
      if (text !== undefined) visit(text, where);
      return;
    }
    case 'file': {
      if (part.filename !== undefined) visit(part.filename, where);
      const text = fileText(part);
      if (text !== undefined) visit(text, where);
      return;
    }
    default:
      // Reasoning (signed by its upstream), and search results (the search engine's, sealed for the upstream that ran it).
      return;
  }
}

/** An image's text: none when it is an image, the text it holds when its data says text, its URL's (a password in it) when it is not data. */
function imageText(url: string): string | undefined {
  const data = readDataUrl(url);
  return data ? readPayload(data.data, data.base64, data.mediaType)?.text : url;
}

function mapImage(url: string, rewrite: Rewrite): string {
  const data = readDataUrl(url);
  if (!data) return rewrite(url);
  const payload = readPayload(data.data, data.base64, data.mediaType);
  if (!payload) return url;
  const text = rewrite(payload.text);
  return text === payload.text ? url : `${data.header}${writePayload(text, payload.encoding)}`;
}

/** A file's text: a text document's, a text file's decoded, a URL's; none for binary or a file id. */
function fileText(part: FilePart): string | undefined {
  const { source } = part;
  switch (source.kind) {
    case 'text':
      return source.text;
    case 'base64':
      return readPayload(source.data, true, part.mediaType ?? mediaTypeFromName(part.filename))?.text;
    case 'url':
      return source.url;
    default:
      return undefined;
  }
}

function mapFile(part: FilePart, rewrite: Rewrite): FilePart {
  const filename = part.filename === undefined ? undefined : rewrite(part.filename);
  const named = filename === part.filename ? part : { ...part, filename };
  const { source } = part;
  switch (source.kind) {
    case 'text': {
      const text = rewrite(source.text);
      return text === source.text ? named : { ...named, source: { kind: 'text', text } };
    }
    case 'base64': {
      const payload = readPayload(source.data, true, part.mediaType ?? mediaTypeFromName(part.filename));
      const text = payload && rewrite(payload.text);
      return !payload || text === payload.text ? named : { ...named, source: { kind: 'base64', data: writePayload(text!, payload.encoding) } };
    }
    case 'url': {
      const url = rewrite(source.url);
      return url === source.url ? named : { ...named, source: { kind: 'url', url } };
    }
    default:
      return named;
  }
}

function mapText(part: TextPart, rewrite: Rewrite): TextPart {
  const text = rewrite(part.text);
  return text === part.text ? part : { ...part, text };
}

function mapInner(part: TextPart | ImagePart, rewrite: Rewrite): TextPart | ImagePart {
  if (part.type === 'text') return mapText(part, rewrite);
  const url = mapImage(part.url, rewrite);
  return url === part.url ? part : { ...part, url };
}

function mapPart(part: Part, rewrite: Rewrite): Part {
  switch (part.type) {
    case 'text':
    case 'image':
      return mapInner(part, rewrite);
    case 'tool-call': {
      const args = rewrite(part.arguments);
      return args === part.arguments ? part : { ...part, arguments: args };
    }
    case 'tool-result': {
      const content = mapList(part.content, (inner) => mapInner(inner, rewrite));
      return content === part.content ? part : { ...part, content };
    }
    case 'file':
      return mapFile(part, rewrite);
    default:
      return part;
  }
}

function mapTool(tool: ToolSpec, rewrite: Rewrite): ToolSpec {
  const description = tool.description === undefined ? undefined : rewrite(tool.description);
  const parameters = rewriteJsonText(tool.parameters, rewrite);
  if (description === tool.description && parameters === tool.parameters) return tool;
  return { ...tool, ...(description !== undefined ? { description } : {}), parameters };
}
