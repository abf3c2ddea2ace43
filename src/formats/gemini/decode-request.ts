import { createHash } from 'node:crypto';
import { RouterError, invalidRequest } from '../../core/errors.js';
import { keepForwardBody } from '../../core/forwarded.js';
import type { CanonicalRequest, TextPart } from '../../core/request.js';
import { keepForSameFormat } from '../../core/same-format-only.js';
import type { DecodeContext, Decoded } from '../client-format.js';
import { asArray, asObject, optionalString, type Json } from '../shared/read-fields.js';
import { decodeGenerationConfig } from './decode-config.js';
import { decodeContents } from './decode-contents.js';
import { decodeToolConfig, decodeTools } from './decode-tools.js';

export interface GeminiOptions {
  /** Thought summaries asked for: thought parts carry their text (without, only their signatures). */
  includeThoughts: boolean;
  /** streamGenerateContent without `alt=sse`: the stream is one JSON array, sent as it grows. */
  jsonArray: boolean;
}

/** The methods a Gemini model path serves here, and whether each streams; countTokens has a route of its own. */
const METHODS: Readonly<Record<string, boolean>> = { generateContent: false, streamGenerateContent: true };

/** The request's top-level fields read below; any other is named. */
const KNOWN = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'safetySettings', 'cachedContent', 'model']);

/**
 * A `generateContent` or `streamGenerateContent` request (https://ai.google.dev/api/generate-content),
 * the model and the method from the path (`/v1beta/models/{model}:{method}`), as the canonical
 * request. What has no counterpart off Gemini is kept for a Gemini upstream (the body is forwarded
 * to one as it came) and elsewhere refused or named by field: safetySettings (each upstream filters
 * as it does), cachedContent (a cache only Google holds: refused), unknown fields.
 */
export function decodeGeminiRequest(body: unknown, context: DecodeContext): Decoded<GeminiOptions> {
  const { model, stream } = modelMethod(context);
  const json = asObject(body, 'body');
  const request: CanonicalRequest = { model, system: [], messages: [], tools: [] };
  request.system = decodeSystem(json.systemInstruction, 'systemInstruction', request);
  const contents = decodeContents(json.contents ?? missingContents(), request, context.secret);
  request.messages = contents.messages;
  request.sessionName = conversationOpening(json.contents);
  const dropped = decodeTools(json.tools, request);
  decodeToolConfig(json.toolConfig, request);
  const { includeThoughts } = decodeGenerationConfig(json.generationConfig, request);
  if (json.safetySettings !== undefined && json.safetySettings !== null) {
    asArray(json.safetySettings, 'safetySettings');
    keepForSameFormat(request, 'safetySettings', "only a Gemini upstream applies Google's safety settings; this route's upstream filters as it does by default.", false);
  }
  const cached = optionalString(json, 'cachedContent');
  if (cached) keepForSameFormat(request, 'cachedContent', `'${cached.slice(0, 80)}' is a context cache held by Google's Gemini API, which only a Gemini upstream can read; send its contents instead.`);
  for (const key of Object.keys(json)) {
    if (!KNOWN.has(key) && json[key] !== undefined && json[key] !== null) keepForSameFormat(request, key, `only a Gemini upstream reads ${key}; this route answers without it.`, false);
  }
  // Reasoning this router sealed for another upstream: opened for it, and never forwarded as written (Gemini cannot read the seal).
  if (!contents.sealed) keepForwardBody(request, { format: 'gemini', body: json });
  const jsonArray = stream && context.query?.get('alt') !== 'sse';
  return {
    request,
    stream,
    options: { includeThoughts, jsonArray },
    ...(dropped.length ? { droppedTools: dropped } : {}),
    ...(jsonArray ? { streamMediaType: 'application/json' } : {}),
  };
}

/**
 * Gemini's clients name no session (Gemini CLI sends none; its privileged-user-id header is one per
 * install), so a conversation is known by its opening: the first content, which every later turn
 * resends unchanged (it holds Gemini CLI's environment context: date, folder). Two conversations
 * that open alike share a prompt prefix, so sharing a cache key and a pinned target serves both.
 */
function conversationOpening(contents: unknown): string | undefined {
  const first = Array.isArray(contents) ? contents[0] : undefined;
  if (first === undefined) return undefined;
  return `gemini-opening:${createHash('sha256').update(JSON.stringify(first)).digest('base64url').slice(0, 32)}`;
}

/** The model and the method the path names; a method this router does not serve is a 404 that lists those it does. */
export function modelMethod(context: DecodeContext): { model: string; stream: boolean } {
  const model = pathModel(context);
  const method = context.params?.method ?? 'generateContent';
  if (!Object.hasOwn(METHODS, method)) {
    throw new RouterError(404, 'not_found', `The method '${method.slice(0, 60)}' is not served here; this router serves generateContent, streamGenerateContent and countTokens on models/${model.slice(0, 80)}.`, undefined, 'method_not_found');
  }
  return { model, stream: METHODS[method]! };
}

/** The model segment of the path, percent-decoded. */
export function pathModel(context: DecodeContext): string {
  const raw = context.params?.model ?? '';
  try {
    const model = decodeURIComponent(raw);
    if (model) return model;
  } catch {
    // Falls through to the error below.
  }
  throw invalidRequest(`The model in the path ('${raw.slice(0, 80)}') is not a model name: use models/{model}, for example models/svc.intelligent-pro.`, 'model');
}

const missingContents = (): never => {
  throw invalidRequest('contents: this field is required.', 'contents', 'missing_required_parameter');
};

/**
 * `systemInstruction`: a Content whose parts are text (Google's SDKs also accept a bare string). A
 * part of another kind has no place in the canonical system prompt: it reaches only a Gemini upstream.
 */
export function decodeSystem(raw: unknown, path: string, request: CanonicalRequest): TextPart[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'string') return raw ? [{ type: 'text', text: raw }] : [];
  const content = asObject(raw, path);
  const parts = asArray(content.parts ?? [], `${path}.parts`);
  return parts.flatMap((item, index): TextPart[] => {
    const part: Json = asObject(item, `${path}.parts[${index}]`);
    if (typeof part.text === 'string') return part.text ? [{ type: 'text', text: part.text }] : [];
    keepForSameFormat(request, `${path}.parts[${index}]`, 'a system instruction holds text only on this route; send media in a user part.');
    return [];
  });
}
