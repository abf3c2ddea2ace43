import type { CanonicalRequest, Message, Part, TextPart, ToolSpec } from './request.js';

/**
 * A request's text, wherever it is: what a client sent that a model reads (messages, the system
 * prompt, tool definitions, tool calls' arguments and results), in both forms an upstream may be
 * sent, the canonical request (translated) and the client's own body (`forwardBody`, forwarded to a
 * same-format upstream). Reading walks the body the client sent when there is one, so places are
 * named as in the client's own request (`messages[2]`, `input[4]`, `system`, `tools[0]`);
 * rewriting changes both forms alike, copying what it changes and never the client's objects.
 *
 * Left alone, as not text or not the router's to change: images and files given as data, and
 * reasoning (signed or sealed by the upstream that wrote it: a changed character invalidates it).
 * The conversation (`messages`, `input`, `contents`) is walked last: it grows at its end turn
 * after turn, so what is walked before it is walked in the same order every turn.
 */

/** Calls `visit` with each piece of text and where in the request it is. */
export function forEachRequestText(request: CanonicalRequest, visit: (text: string, where: string) => void): void {
  const body = request.forwardBody?.body;
  if (body) {
    for (const key of bodyKeys(body)) walkBody(body[key], key, visit);
    return;
  }
  for (const part of request.system) visit(part.text, 'system');
  request.tools.forEach((tool, index) => {
    const where = `tools[${index}]`;
    if (tool.description !== undefined) visit(tool.description, where);
    walkBody(tool.parameters, where, visit);
  });
  request.messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    for (const part of message.content) visitPart(part, where, visit);
  });
}

/**
 * Replaces each piece of text with what `rewrite` makes of it, in the canonical request and in the
 * body a same-format upstream is sent. `rewrite` returns its argument itself when nothing changes.
 */
export function rewriteRequestText(request: CanonicalRequest, rewrite: (text: string) => string): void {
  if (request.forwardBody) {
    const body = mapBody(request.forwardBody.body, rewrite) as Record<string, unknown>;
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
  const messages = mapList(request.messages, (message) => {
    const content = mapList(message.content, (part) => mapPart(part, rewrite));
    return content === message.content ? message : ({ ...message, content } as Message);
  });
  if (messages !== request.messages) request.messages = messages;
}

/** The conversation's keys in a client's body, walked after every other key. */
const CONVERSATION = new Set(['messages', 'input', 'contents']);

function bodyKeys(body: Record<string, unknown>): string[] {
  const keys = Object.keys(body);
  return [...keys.filter((key) => !CONVERSATION.has(key)), ...keys.filter((key) => CONVERSATION.has(key))];
}

/** Members that hold no text a model reads: payloads in base64 and the upstreams' signatures and sealed reasoning. */
const OPAQUE_KEYS = new Set(['data', 'signature', 'encrypted_content', 'thoughtSignature', 'thought_signature']);
/** Blocks written, and signed or sealed, by the upstream itself. */
const OPAQUE_TYPES = new Set(['thinking', 'redacted_thinking', 'reasoning']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const opaqueString = (text: string): boolean => text.startsWith('data:');
const opaqueBlock = (node: Record<string, unknown>): boolean => typeof node.type === 'string' && OPAQUE_TYPES.has(node.type);

/** Each string in a JSON value; `where` is the top-level key and, for a list, the item's index. */
function walkBody(node: unknown, where: string, visit: (text: string, where: string) => void, depth = 0): void {
  if (typeof node === 'string') {
    if (!opaqueString(node)) visit(node, where);
  } else if (Array.isArray(node)) {
    node.forEach((item, index) => walkBody(item, depth === 0 ? `${where}[${index}]` : where, visit, depth + 1));
  } else if (isObject(node) && !opaqueBlock(node)) {
    for (const key in node) if (Object.hasOwn(node, key) && !OPAQUE_KEYS.has(key)) walkBody(node[key], where, visit, depth + 1);
  }
}

/** The JSON value with its strings rewritten: the same value when none changes, else copies of what holds a change. */
function mapBody(node: unknown, rewrite: (text: string) => string): unknown {
  if (typeof node === 'string') return opaqueString(node) ? node : rewrite(node);
  if (Array.isArray(node)) return mapList(node, (item) => mapBody(item, rewrite));
  if (!isObject(node) || opaqueBlock(node)) return node;
  let copy: Record<string, unknown> | undefined;
  for (const key in node) {
    if (!Object.hasOwn(node, key) || OPAQUE_KEYS.has(key)) continue;
    const next = mapBody(node[key], rewrite);
    // defineProperty: a client's `__proto__` member stays a member of the copy.
    if (next !== node[key]) Object.defineProperty((copy ??= { ...node }), key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? node;
}

function mapList<T>(list: T[], map: (item: T) => T): T[] {
  let copy: T[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const next = map(list[i]!);
    if (next !== list[i]) (copy ??= list.slice())[i] = next;
  }
  return copy ?? list;
}

function visitPart(part: Part, where: string, visit: (text: string, where: string) => void): void {
  switch (part.type) {
    case 'text':
      return visit(part.text, where);
    case 'tool-call':
      return visit(part.arguments, where);
    case 'tool-result':
      for (const inner of part.content) visitPart(inner, where, visit);
      return;
    case 'file':
      if (part.source.kind === 'text') visit(part.source.text, where);
      return;
    default:
      // Images, and reasoning (signed by its upstream).
      return;
  }
}

function mapText(part: TextPart, rewrite: (text: string) => string): TextPart {
  const text = rewrite(part.text);
  return text === part.text ? part : { ...part, text };
}

function mapPart(part: Part, rewrite: (text: string) => string): Part {
  switch (part.type) {
    case 'text':
      return mapText(part, rewrite);
    case 'tool-call': {
      const args = rewrite(part.arguments);
      return args === part.arguments ? part : { ...part, arguments: args };
    }
    case 'tool-result': {
      const content = mapList(part.content, (inner) => (inner.type === 'text' ? mapText(inner, rewrite) : inner));
      return content === part.content ? part : { ...part, content };
    }
    case 'file': {
      if (part.source.kind !== 'text') return part;
      const text = rewrite(part.source.text);
      return text === part.source.text ? part : { ...part, source: { kind: 'text', text } };
    }
    default:
      return part;
  }
}

function mapTool(tool: ToolSpec, rewrite: (text: string) => string): ToolSpec {
  const description = tool.description === undefined ? undefined : rewrite(tool.description);
  const parameters = mapBody(tool.parameters, rewrite) as Record<string, unknown>;
  if (description === tool.description && parameters === tool.parameters) return tool;
  return { ...tool, ...(description !== undefined ? { description } : {}), parameters };
}
