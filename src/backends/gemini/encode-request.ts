import { bodyTextOf } from '../../core/body-text.js';
import { invalidRequest } from '../../core/errors.js';
import { fileLabel, mediaTypeFromName, parseDataUrl } from '../../core/file-data.js';
import type { CanonicalRequest, FilePart, ImagePart, Message, Part, ReasoningEffort, ToolChoice } from '../../core/request.js';
import { translatableOrRefuse } from '../../core/same-format-only.js';
import { setBackendWarnings } from '../../core/warnings.js';
import { webSearchAsText } from '../../core/web-search.js';
import { geminiSearchWarnings } from './web-search.js';
import { SKIP_SIGNATURE_VALIDATION, signatureOf } from '../../wire/gemini/thought-signature.js';
import { cacheControlsTaken, capabilitiesOf, mapEffort, replayableMessages, unsentCacheControls } from '../../catalog/index.js';
import type { GeminiContent, GeminiPart, GeminiRequestBody } from '../../wire/gemini/types.js';
import { sanitizeSchema, sanitizeToolParameters } from './sanitize-schema.js';
import { readToolCallId } from './tool-call-id.js';

/** Thinking budgets for a bare effort, within what every 2.5 model accepts (Flash's highest is 24,576); `none` is 0, off. */
const BUDGET_BY_EFFORT: Record<ReasoningEffort, number> = { none: 0, minimal: 512, low: 2048, medium: 8192, high: 24_576, xhigh: 24_576, max: 24_576 };


/**
 * The `generateContent` body for a canonical request (the stream variant takes the same body;
 * the method is in the URL). https://ai.google.dev/api/generate-content#request-body
 */
export function encodeGeminiRequest(request: CanonicalRequest, upstreamModel: string, _stream: boolean): GeminiRequestBody {
  if (request.forwardBody?.format === 'gemini') {
    // A Gemini client's own body (its format decoder checked it), forwarded whole: the model and the method are in the URL.
    setBackendWarnings(request, []);
    return request.forwardBody.body as unknown as GeminiRequestBody;
  }
  // What only a same-format upstream takes is refused or named; OpenAI's explicit cache controls, which Gemini does not take, are named.
  const warnings = [...translatableOrRefuse(request), ...unsentCacheControls(request, cacheControlsTaken('gemini', upstreamModel), upstreamModel)];
  // Reasoning another model wrote that this one cannot read: named, and carried as its provider allows (src/catalog/reasoning-reads.ts).
  const body: GeminiRequestBody = { contents: encodeContents(replayableMessages(request, 'gemini', upstreamModel, warnings, 'gemini')) };
  const system = request.system.map((part) => part.text).filter((text) => text !== '');
  if (system.length) body.systemInstruction = { parts: system.map((text) => ({ text })) };

  if (request.tools.length) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => {
          const parameters = sanitizeToolParameters(tool.parameters);
          return { name: tool.name, ...(tool.description ? { description: tool.description } : {}), ...(parameters ? { parameters } : {}) };
        }),
      },
    ];
    if (request.toolChoice !== undefined) body.toolConfig = { functionCallingConfig: encodeToolChoice(request.toolChoice) };
    if (request.parallelToolCalls === false) warnings.push('parallel_tool_calls not sent: Gemini has no such setting, and may call several tools at once.');
  }
  if (request.webSearch) {
    (body.tools ??= []).push({ googleSearch: {} });
    warnings.push(...geminiSearchWarnings(request.webSearch));
  }

  const config: NonNullable<GeminiRequestBody['generationConfig']> = {};
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  if (request.stop?.length) config.stopSequences = request.stop;
  // seed, penalties and JSON mode: https://ai.google.dev/api/generate-content#generationconfig
  if (request.seed !== undefined) config.seed = request.seed;
  if (request.presencePenalty !== undefined) config.presencePenalty = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) config.frequencyPenalty = request.frequencyPenalty;
  if (request.outputSchema) {
    config.responseMimeType = 'application/json';
    config.responseSchema = sanitizeSchema(request.outputSchema.schema);
  } else if (request.jsonObject) {
    config.responseMimeType = 'application/json';
  }
  const detailed = (part: Part): boolean => part.type === 'image' && part.detail !== undefined && part.detail !== 'auto';
  if (request.messages.some((message) => message.content.some((part) => detailed(part) || (part.type === 'tool-result' && part.content.some(detailed))))) {
    warnings.push('image detail not sent: Gemini sets media resolution per request, not per image.');
  }
  const thinking = thinkingConfig(request, upstreamModel, warnings);
  // Asked-for reasoning comes back as thought summaries, which clients show as reasoning, unless
  // the client asked for it omitted.
  if (thinking) config.thinkingConfig = { ...thinking, ...(thinking.thinkingBudget !== 0 ? { includeThoughts: request.reasoningDisplay !== 'omitted' } : {}) };
  if (Object.keys(config).length) body.generationConfig = config;
  setBackendWarnings(request, warnings);
  return body;
}

/**
 * A Gemini client's body as the text it came in (core/body-text.ts), sent as it is: on Gemini's API
 * the model is in the URL, so not a byte of the body changes. Undefined for any other request, or
 * when the text was not kept whole.
 */
export function forwardedGeminiText(request: CanonicalRequest): string | undefined {
  const forwardBody = request.forwardBody;
  if (forwardBody?.format !== 'gemini') return undefined;
  const text = bodyTextOf(forwardBody.body);
  if (text !== undefined) setBackendWarnings(request, []);
  return text;
}

/**
 * Thinking in the form the model takes (https://ai.google.dev/gemini-api/docs/thinking): Gemini 3
 * a level (its nearest to the effort asked, named in a warning), 2.5 and models the catalog does
 * not know a budget; an explicit budget goes as a budget, which Gemini 3 still takes. A model that
 * cannot stop thinking (2.5 Pro, 3) keeps its default when asked for none, and says so.
 */
function thinkingConfig(request: CanonicalRequest, model: string, warnings: string[]): { thinkingBudget?: number; thinkingLevel?: 'minimal' | 'low' | 'medium' | 'high' } | undefined {
  const effort = request.reasoningEffort;
  const capabilities = capabilitiesOf('gemini', model);
  const reasoning = capabilities?.reasoning;
  if (request.reasoningBudget === undefined && effort === undefined) {
    // Summaries asked with no effort (Codex's reasoning.summary alone): the model's own thinking, its thoughts returned.
    if (request.reasoningDisplay !== 'summarized') return undefined;
    if (capabilities && !reasoning) {
      warnings.push(`reasoning summaries not requested from ${model}: it does not think.`);
      return undefined;
    }
    return {};
  }
  if (request.reasoningBudget === undefined && effort === 'none') {
    if (!reasoning) return undefined;
    if (!reasoning.canTurnOff) {
      warnings.push(`reasoning effort 'none' not applied: ${model} always thinks; it thinks as much as it chooses.`);
      return undefined;
    }
    return { thinkingBudget: 0 };
  }
  if (request.reasoningBudget === undefined && reasoning && !reasoning.budget && reasoning.efforts.length) {
    const mapped = mapEffort(effort!, reasoning.efforts, model);
    if (mapped?.warning) warnings.push(mapped.warning);
    return mapped ? { thinkingLevel: mapped.effort as 'minimal' | 'low' | 'medium' | 'high' } : undefined;
  }
  return { thinkingBudget: request.reasoningBudget ?? BUDGET_BY_EFFORT[effort!] };
}

function encodeToolChoice(choice: ToolChoice): NonNullable<GeminiRequestBody['toolConfig']>['functionCallingConfig'] {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

/**
 * Canonical messages as Gemini turns: `user` for user text, mid-conversation system text and tool
 * results; `model` for the assistant. Neighbouring turns of one role are joined, as Gemini wants
 * turns to alternate.
 */
function encodeContents(messages: Message[]): GeminiContent[] {
  const names = callNames(messages);
  const contents: GeminiContent[] = [];
  /** The calls of the latest model turn, for results whose call id is unknown (matched by order). */
  let lastCalls: string[] = [];
  let resultIndex = 0;
  messages.forEach((message, messageIndex) => {
    const role = message.role === 'assistant' ? 'model' : 'user';
    const parts: GeminiPart[] = [];
    if (message.role === 'assistant') {
      lastCalls = [];
      resultIndex = 0;
    }
    message.content.forEach((part, partIndex) => {
      const path = `messages[${messageIndex}].content[${partIndex}]`;
      if (part.type === 'tool-call') lastCalls.push(part.name);
      if (part.type === 'tool-result') {
        const name = names.get(part.callId) ?? lastCalls[resultIndex];
        if (name === undefined) {
          throw invalidRequest(`${path}: the tool result for call '${part.callId}' answers no tool call in the conversation; Gemini needs the function's name.`, path);
        }
        resultIndex++;
        parts.push(...encodeToolResult(part, name, path));
        return;
      }
      parts.push(...encodePart(part, path));
    });
    if (!parts.length) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  });
  markUnsignedCalls(contents);
  return contents;
}

/** Call id → function name, from every tool call the conversation replays. */
function callNames(messages: Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) for (const part of message.content) if (part.type === 'tool-call') names.set(part.id, part.name);
  return names;
}

function encodePart(part: Exclude<Part, { type: 'tool-result' }>, path: string): GeminiPart[] {
  const signature = signatureOf(part.providerMetadata);
  const signed = signature ? { thoughtSignature: signature } : {};
  switch (part.type) {
    case 'text':
      // An empty text kept for its signature goes back as Gemini sent it.
      return part.text || signature ? [{ text: part.text, ...signed }] : [];
    case 'image':
      return [encodeImage(part, path)];
    case 'file':
      return [encodeFile(part, path)];
    case 'tool-call': {
      const carried = readToolCallId(part.id);
      const thoughtSignature = signature ?? carried.thoughtSignature;
      return [
        {
          functionCall: { name: part.name, args: parseArguments(part.arguments, `${path}.arguments`), ...(carried.upstreamId ? { id: carried.upstreamId } : {}) },
          ...(thoughtSignature ? { thoughtSignature } : {}),
        },
      ];
    }
    case 'web-search':
      // Another upstream's search, said in words (Gemini replays its own grounding as the text it grounded).
      return [{ text: webSearchAsText(part) }];
    case 'reasoning':
      // Gemini's own thought goes back with its signature; unsigned thoughts and any other
      // upstream's reasoning mean nothing to it.
      return signature ? [{ text: part.text, thought: true, thoughtSignature: signature }] : [];
  }
}

function encodeToolResult(part: Extract<Part, { type: 'tool-result' }>, name: string, path: string): GeminiPart[] {
  const carried = readToolCallId(part.callId);
  const text = part.content
    .filter((inner) => inner.type === 'text')
    .map((inner) => inner.text)
    .join('\n\n');
  // `output` holds a function's output and `error` its failure: https://ai.google.dev/api/caching#FunctionResponse
  const response = { name, response: part.isError ? { error: text } : { output: text }, ...(carried.upstreamId ? { id: carried.upstreamId } : {}) };
  // Images a tool returned follow its response in the same turn.
  const images = part.content.flatMap((inner, index) => (inner.type === 'image' ? [encodeImage(inner, `${path}.content[${index}]`)] : []));
  return [{ functionResponse: response }, ...images];
}

/** A data: URL goes inline; any other URL by reference. https://ai.google.dev/api/caching#Part */
function encodeImage(part: ImagePart, path: string): GeminiPart {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(part.url);
  if (data) return { inlineData: { mimeType: data[1]!, data: data[2]! } };
  if (!/^https?:\/\//i.test(part.url) && !/^gs:\/\//i.test(part.url)) throw invalidRequest(`${path}: an image must be a base64 data: URL or an http(s) URL.`, path);
  return { fileData: { mimeType: part.mediaType ?? mediaTypeOf(part.url), fileUri: part.url } };
}

/**
 * A document: inline data, a URL or a Gemini file URI by reference, plain text as text.
 * https://ai.google.dev/gemini-api/docs/document-processing. Another provider's file id means
 * nothing to Gemini, so it is refused, naming the part.
 */
function encodeFile(part: FilePart, path: string): GeminiPart {
  const mediaType = part.mediaType ?? mediaTypeFromName(part.filename);
  const source = part.source;
  switch (source.kind) {
    case 'text':
      return { text: part.filename ? `${part.filename}:\n${source.text}` : source.text };
    case 'base64': {
      const parsed = parseDataUrl(source.data);
      return { inlineData: { mimeType: parsed?.mediaType ?? mediaType ?? 'application/pdf', data: parsed?.data ?? source.data } };
    }
    case 'url':
      return { fileData: { mimeType: mediaType ?? 'application/pdf', fileUri: source.url } };
    case 'file-id':
      if (source.provider === 'gemini') return { fileData: { mimeType: mediaType ?? 'application/pdf', fileUri: source.id } };
      throw invalidRequest(`${path}: ${fileLabel(part)} is a file id issued by ${source.provider}, and Gemini cannot read another provider's files; send the file's data instead.`, path);
  }
}

function mediaTypeOf(url: string): string {
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  switch (extension) {
    case 'png':
      return 'image/png';
    case 'webp':
      return 'image/webp';
    case 'gif':
      return 'image/gif';
    case 'heic':
      return 'image/heic';
    default:
      return 'image/jpeg';
  }
}

/** Gemini's args are a JSON object, not text; text that is not one is refused here, naming the part. */
function parseArguments(args: string, path: string): Record<string, unknown> {
  if (!args.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    throw invalidRequest(`${path}: the tool call's arguments are not JSON, and Gemini takes them only as a JSON object.`, path);
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}

/**
 * Gemini 3 wants the first call of each model step in the current turn (after the last user message
 * that is not only tool results) to carry a signature. A step whose calls carry none was not made by
 * Gemini (or lost its id): it gets Google's stand-in, wherever it is. Earlier turns are not checked,
 * but a step keeps its stand-in once its turn has passed: taking it off would change an earlier
 * content of the prompt, and every turn after would miss the upstream's prompt cache.
 */
function markUnsignedCalls(contents: GeminiContent[]): void {
  for (const content of contents) {
    if (content.role !== 'model') continue;
    const calls = content.parts.filter((part) => part.functionCall);
    if (calls.length && !calls.some((part) => part.thoughtSignature)) calls[0]!.thoughtSignature = SKIP_SIGNATURE_VALIDATION;
  }
}
