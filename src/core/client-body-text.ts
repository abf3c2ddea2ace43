import { mediaTypeFromName } from './file-data.js';
import { readDataUrl, readPayload, writePayload, type PayloadText } from './text-payload.js';

/**
 * The text in a client's own JSON body (any format: Chat, Responses, Messages, Gemini's), read and
 * rewritten by what each member is. Every string is text a model reads, as written, except:
 *
 * - a file's bytes (`url`, `image_url`, `file_data`; a `data` member beside its media type, as
 *   Anthropic's base64 sources, Gemini's inlineData and OpenAI's input_audio hold one): read as the
 *   text they decode to when they are text (core/text-payload.ts), left alone when binary. A
 *   `data:` string anywhere else is text like any other;
 * - what an upstream signed or sealed (`signature`, `encrypted_content`, thinking and reasoning
 *   blocks): a changed character invalidates it, and it is that upstream's own words.
 *
 * JSON the client defines rather than the format (tool definitions, a tool call's input, an output
 * schema, metadata) holds no file and nothing sealed: every string in it is text, whatever its
 * member's name.
 */

export type Visit = (text: string, where: string) => void;
export type Rewrite = (text: string) => string;

/** The conversation's keys in a client's body, walked after every other key. */
const CONVERSATION = new Set(['messages', 'input', 'contents']);
/** Members whose value is JSON the client defines: tool definitions, schemas, metadata, a tool call's `input` (at the top level, `input` is the conversation). */
const FREE_KEYS = new Set(['tools', 'input', 'input_schema', 'parameters', 'schema', 'metadata', 'client_metadata']);
/** Members an upstream sealed or signed. */
const OPAQUE_KEYS = new Set(['signature', 'encrypted_content', 'thoughtSignature', 'thought_signature']);
/** Members that hold a file's bytes (or its URL). */
const FILE_KEYS = new Set(['url', 'image_url', 'file_data']);
/** Blocks written, and signed or sealed, by the upstream itself. */
const OPAQUE_TYPES = new Set(['thinking', 'redacted_thinking', 'reasoning']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** A reasoning block, in Anthropic's, OpenAI's or OpenRouter's (`reasoning.encrypted`, `reasoning.text`) shape. */
const opaqueBlock = (node: Record<string, unknown>): boolean => typeof node.type === 'string' && (OPAQUE_TYPES.has(node.type) || node.type.startsWith('reasoning.'));

/** What a string member is: text as written, nothing to read, or a file's bytes. */
const Role = { Text: 0, Skip: 1, Payload: 2 } as const;
type Role = (typeof Role)[keyof typeof Role];

function roleOf(key: string, parent: Record<string, unknown> | undefined): Role {
  if (OPAQUE_KEYS.has(key)) return Role.Skip;
  if (FILE_KEYS.has(key) || (key === 'data' && parent !== undefined && holderType(parent) !== null)) return Role.Payload;
  return Role.Text;
}

/**
 * The media type of the bytes a `data` member holds beside it, or null when its object holds no
 * file (an Anthropic text source's `data` is the document's text).
 */
function holderType(parent: Record<string, unknown>): string | undefined | null {
  const named = (value: unknown) => (typeof value === 'string' ? value : undefined);
  if (parent.type === 'base64') return named(parent.media_type);
  if (typeof parent.mimeType === 'string') return parent.mimeType;
  if (typeof parent.mime_type === 'string') return parent.mime_type;
  if (typeof parent.format === 'string' && parent.type === undefined) return `audio/${parent.format}`;
  return null;
}

/** A file member's text (decoded, with the data URL's header to write it again), or undefined when it is binary. */
function payloadOf(value: string, key: string, parent: Record<string, unknown> | undefined): (PayloadText & { header?: string }) | undefined {
  if (key === 'data') return readPayload(value, true, holderType(parent!) ?? undefined);
  const url = readDataUrl(value);
  if (url) {
    const payload = readPayload(url.data, url.base64, url.mediaType);
    return payload && { ...payload, header: url.header };
  }
  // Bare base64, as some clients send `file_data`: its type is its file name's.
  if (key === 'file_data') return readPayload(value, true, mediaTypeFromName(typeof parent?.filename === 'string' ? parent.filename : undefined));
  // A URL: its text is read (a password in it would reach the upstream).
  return { text: value, encoding: 'as-is' };
}

/** Each piece of text in a client's body, the conversation last; `where` is the top-level key and, for a list, the item's index. */
export function forEachBodyText(body: Record<string, unknown>, visit: Visit): void {
  for (const key of bodyKeys(body)) walk(body[key], key, key, body, visit, 0, topLevelFree(key));
}

/** Each string of JSON the client defines (a tool's schema), all of it text. */
export function forEachJsonText(node: unknown, where: string, visit: Visit): void {
  walk(node, where, '', undefined, visit, 1, true);
}

/** The client's body with its text rewritten: the same object when nothing changes, else copies of what holds a change. */
export function rewriteBodyText(body: Record<string, unknown>, rewrite: Rewrite): Record<string, unknown> {
  return mapMembers(body, rewrite, 0, false);
}

/** JSON the client defines with every string rewritten, copied only where it changes. */
export function rewriteJsonText<T>(node: T, rewrite: Rewrite): T {
  return map(node, '', undefined, rewrite, 1, true) as T;
}

function bodyKeys(body: Record<string, unknown>): string[] {
  const keys = Object.keys(body);
  return [...keys.filter((key) => !CONVERSATION.has(key)), ...keys.filter((key) => CONVERSATION.has(key))];
}

const topLevelFree = (key: string): boolean => FREE_KEYS.has(key) && !CONVERSATION.has(key);

function walk(node: unknown, where: string, key: string, parent: Record<string, unknown> | undefined, visit: Visit, depth: number, free: boolean): void {
  if (typeof node === 'string') {
    const role = free ? Role.Text : roleOf(key, parent);
    if (role === Role.Text) visit(node, where);
    else if (role === Role.Payload) {
      const payload = payloadOf(node, key, parent);
      if (payload) visit(payload.text, where);
    }
  } else if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index++) walk(node[index], depth === 0 ? `${where}[${index}]` : where, key, parent, visit, depth + 1, free);
  } else if (isObject(node) && (free || !opaqueBlock(node))) {
    for (const member in node) if (Object.hasOwn(node, member)) walk(node[member], where, member, node, visit, depth + 1, free || FREE_KEYS.has(member));
  }
}

function map(node: unknown, key: string, parent: Record<string, unknown> | undefined, rewrite: Rewrite, depth: number, free: boolean): unknown {
  if (typeof node === 'string') {
    const role = free ? Role.Text : roleOf(key, parent);
    if (role === Role.Text) return rewrite(node);
    if (role === Role.Skip) return node;
    const payload = payloadOf(node, key, parent);
    if (!payload) return node;
    const text = rewrite(payload.text);
    return text === payload.text ? node : `${payload.header ?? ''}${writePayload(text, payload.encoding)}`;
  }
  if (Array.isArray(node)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < node.length; index++) {
      const next = map(node[index], key, parent, rewrite, depth + 1, free);
      if (next !== node[index]) (copy ??= node.slice())[index] = next;
    }
    return copy ?? node;
  }
  if (!isObject(node) || (!free && opaqueBlock(node))) return node;
  return mapMembers(node, rewrite, depth, free);
}

function mapMembers(node: Record<string, unknown>, rewrite: Rewrite, depth: number, free: boolean): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const member in node) {
    if (!Object.hasOwn(node, member)) continue;
    const next = map(node[member], member, node, rewrite, depth + 1, depth === 0 ? topLevelFree(member) : free || FREE_KEYS.has(member));
    // defineProperty: a client's `__proto__` member stays a member of the copy.
    if (next !== node[member]) Object.defineProperty((copy ??= { ...node }), member, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? node;
}
