import { bodyTextOf } from '../../core/body-text.js';
import { invalidRequest } from '../../core/errors.js';
import { withMembers } from '../../core/json-members.js';
import { translatableOrRefuse } from '../../core/same-format-only.js';
import { asSystemReminder } from '../../core/system-notes.js';
import { setBackendWarnings } from '../../core/warnings.js';
import { metadataOf, metadataString } from '../../core/provider-metadata.js';
import type { CanonicalRequest, FilePart, Message, Part, ToolChoice } from '../../core/request.js';
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { AnthropicImageSource, AnthropicRequestBlock, AnthropicRequestBody, AnthropicRequestMessage } from './api.js';
import { placeAnthropicBreakpoints } from './cache-breakpoints.js';
import { cacheControlsTaken, capabilitiesOf, replayableMessages, unsentCacheControls, unsentSampling } from '../../catalog/index.js';
import { thinkingPlan } from './thinking-form.js';
import { adaptForwardedBody, allowedToolChoice, refusePrefill, samplingRefusedFrom } from './model-rules.js';
import { ANTHROPIC_VERSION } from './api-version.js';
import { encodeAnthropicSearchTool, encodeSearchPart } from './web-search.js';

export interface EncodeOptions {
  /** The anthropic-version the call is sent with, when the backend pins one (the translation is written for 2023-06-01). */
  version?: string | undefined;
  /** The upstream is Anthropic's own API, where server-side fallback runs (not Bedrock or Vertex). */
  serverFallbacks?: boolean;
  /** The body is for count_tokens: a conversation ending in the assistant's words is counted, not refused. */
  counting?: boolean;
}

/** Anthropic requires max_tokens; this is what a request that names no cap gets. */
const DEFAULT_MAX_TOKENS = 8192;

type Block = AnthropicRequestBlock;
type AnthropicMessage = AnthropicRequestMessage;

/**
 * The Messages body for a canonical request. Same-format requests forward the client's body with
 * the model renamed (keeping cache_control, betas' fields and anything else we do not model).
 */
/** The forwarded body's members the router sets, in this order when the client's text has neither. */
const FORWARD_MEMBERS = ['model', 'stream'];

/**
 * encodeAnthropicRequest's body for a same-format request as text: the client's own text with the
 * model and `stream` set, when it was kept (core/body-text.ts), so a long request is not written
 * out again. The same JSON the spread below gives, member order included. Undefined otherwise.
 */
export function forwardedAnthropicText(request: CanonicalRequest, upstreamModel: string, stream: boolean, options: EncodeOptions = {}): string | undefined {
  const forwardBody = request.forwardBody;
  if (forwardBody?.format !== 'messages') return undefined;
  // A body the model would refuse is rewritten (encodeAnthropicRequest), never forwarded as written.
  if (adaptedForwardBody(request, upstreamModel, options)) return undefined;
  const text = bodyTextOf(forwardBody.body);
  if (text === undefined) return undefined;
  setBackendWarnings(request, []);
  return withMembers(text, FORWARD_MEMBERS, [JSON.stringify(upstreamModel), stream ? 'true' : 'false']);
}

/**
 * The client's forwarded body as this model takes it (model-rules.ts), under the anthropic-version
 * the call goes with: the backend's pinned one, else the client's own.
 */
function adaptedForwardBody(request: CanonicalRequest, upstreamModel: string, options: EncodeOptions) {
  const forwardBody = request.forwardBody!;
  const version = options.version ?? forwardBody.headers?.['anthropic-version'] ?? ANTHROPIC_VERSION;
  return adaptForwardedBody(forwardBody.body, request, capabilitiesOf('anthropic', upstreamModel), upstreamModel, version, options.counting === true, options.serverFallbacks === true);
}

export function encodeAnthropicRequest(request: CanonicalRequest, upstreamModel: string, stream: boolean, options: EncodeOptions = {}): AnthropicRequestBody {
  if (request.forwardBody?.format === 'messages') {
    const adapted = adaptedForwardBody(request, upstreamModel, options);
    setBackendWarnings(request, adapted?.warnings ?? []);
    // The client's own Messages request (its format decoder checked it), forwarded whole, or as the model takes it.
    return { ...(adapted?.body ?? request.forwardBody.body), model: upstreamModel, stream } as unknown as AnthropicRequestBody;
  }
  const capabilities = capabilitiesOf('anthropic', upstreamModel);
  // A conversation ending in the assistant's words is refused here where the model refuses a prefill.
  if (!options.counting) refusePrefill(request, capabilities, upstreamModel);
  // OpenAI's explicit cache controls, which Claude does not take: named (the router places Anthropic's breakpoints itself).
  const warnings = [...translatableOrRefuse(request), ...unsentCacheControls(request, cacheControlsTaken('anthropic', upstreamModel), upstreamModel)];
  const maxTokens = request.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  // Reasoning another model wrote that this one cannot read: named, and carried as its provider allows (src/catalog/reasoning-reads.ts).
  const body: AnthropicRequestBody = { model: upstreamModel, max_tokens: maxTokens, messages: encodeMessages(replayableMessages(request, 'anthropic', upstreamModel, warnings, 'anthropic')) };
  const system = request.system.filter((part) => part.text).flatMap((part) => withCacheControl(part, [{ type: 'text', text: part.text }]) as TextBlockParam[]);
  // Claude Code's attribution line, set aside by the Messages decoder, goes back first as it came.
  const attribution = metadataString(request.providerMetadata, 'anthropic', 'systemAttribution');
  if (attribution) system.unshift({ type: 'text', text: attribution });
  if (system.length) body.system = system;
  // Structured outputs: the answer is held to the schema.
  // https://platform.claude.com/docs/en/build-with-claude/structured-outputs
  if (request.outputSchema) {
    const { $schema: _meta, ...schema } = request.outputSchema.schema;
    body.output_config = { format: { type: 'json_schema', schema } };
  } else if (request.jsonObject) {
    warnings.push('JSON mode (json_object) not sent: Anthropic holds an answer to JSON only given a schema; send a json_schema format instead.');
  }
  const noSuchSetting = (['seed', 'frequencyPenalty', 'presencePenalty'] as const).filter((key) => request[key] !== undefined);
  if (noSuchSetting.length) warnings.push(`${noSuchSetting.map(settingName).join(', ')} not sent: Anthropic has no such setting.`);
  if (hasImageDetail(request)) warnings.push('image detail not sent: Anthropic has no such setting, and sizes images itself.');
  // A forced choice the model refuses goes as `auto`, the tools still offered (model-rules.ts).
  const allowed = allowedToolChoice(request.toolChoice, capabilities, upstreamModel);
  if (request.tools.length) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      input_schema: { type: 'object', ...tool.parameters },
    }));
    const choice = encodeToolChoice(allowed.choice, request.parallelToolCalls);
    if (choice) body.tool_choice = choice;
    if (allowed.warning) warnings.push(allowed.warning);
  }
  if (request.webSearch) (body.tools ??= []).push(encodeAnthropicSearchTool(request.webSearch, warnings));
  // Thinking as the tool choice actually sent allows it: a forced choice sent as `auto` no longer keeps thinking off.
  const plan = thinkingPlan(allowed.choice === request.toolChoice ? request : { ...request, toolChoice: allowed.choice }, maxTokens, capabilities, upstreamModel);
  warnings.push(...plan.warnings);
  if (plan.thinking) body.thinking = plan.thinking;
  if (plan.effort) body.output_config = { ...body.output_config, effort: plan.effort };
  // Sampling the model refuses (outright, or two together) is left out and named, rather than refused upstream with a 400.
  const unsent = unsentSampling(request, capabilities, upstreamModel, plan.effortSent);
  if (unsent.warning) warnings.push(unsent.warning);
  let sampling = (['temperature', 'topP', 'topK'] as const).filter((key) => request[key] !== undefined && !unsent.settings.includes(key));
  if (options.version !== undefined && options.version >= samplingRefusedFrom(capabilities) && sampling.length) {
    // https://platform.claude.com/docs/en/api/migration-2026-10-21: the version refuses them, even at their defaults.
    warnings.push(`${sampling.map(settingName).join(', ')} not sent: this backend is pinned to anthropic-version ${options.version}, which has no sampling settings.`);
    sampling = [];
  }
  if (plan.thinking && plan.thinking.type !== 'disabled') {
    // With thinking on, Anthropic accepts only the default sampling settings.
    if (sampling.length) warnings.push(`${sampling.map(settingName).join(', ')} not sent: Anthropic takes only its default sampling while thinking.`);
  } else {
    if (sampling.includes('temperature')) {
      body.temperature = Math.min(1, request.temperature!);
      if (request.temperature! > 1) warnings.push(`temperature ${request.temperature} sent as 1, Anthropic's highest.`);
    }
    if (sampling.includes('topP')) body.top_p = request.topP;
    if (sampling.includes('topK')) body.top_k = request.topK;
  }
  if (request.stop?.length) body.stop_sequences = request.stop;
  if (request.metadata?.user_id) body.metadata = { user_id: request.metadata.user_id };
  // Server-side fallback where the model takes it (the catalog's row); elsewhere the route's own next target answers a refusal.
  if (request.fallbacks && options.serverFallbacks && capabilities?.serverFallbacks) body.fallbacks = request.fallbacks;
  if (stream) body.stream = true;
  placeAnthropicBreakpoints(body);
  setBackendWarnings(request, warnings);
  return body;
}

/**
 * Canonical messages as strictly alternating user/assistant turns: tool results join the user turn
 * (first, as Anthropic requires), mid-conversation system text becomes a user-side note, and
 * blocks Anthropic refuses (empty text, unsigned reasoning) are left out.
 */
type Setting = 'temperature' | 'topP' | 'topK' | 'seed' | 'frequencyPenalty' | 'presencePenalty';
const settingName = (key: Setting): string =>
  ({ temperature: 'temperature', topP: 'top_p', topK: 'top_k', seed: 'seed', frequencyPenalty: 'frequency_penalty', presencePenalty: 'presence_penalty' })[key];

/** Whether an image anywhere (a message or a tool result) asks for a detail level other than the default. */
function hasImageDetail(request: CanonicalRequest): boolean {
  const asks = (part: Part): boolean => part.type === 'image' && part.detail !== undefined && part.detail !== 'auto';
  return request.messages.some((message) => message.content.some((part) => asks(part) || (part.type === 'tool-result' && part.content.some(asks))));
}

function encodeMessages(messages: Message[]): AnthropicMessage[] {
  const encoded: AnthropicMessage[] = [];
  messages.forEach((message, messageIndex) => {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = message.content.flatMap((part, partIndex) => withCacheControl(part, encodePart(part, message.role === 'system', `messages[${messageIndex}].content[${partIndex}]`)));
    if (!blocks.length) return;
    const last = encoded.at(-1);
    if (last?.role === role) {
      // Tool results must lead a user turn; after any results already there, so parallel results keep their order.
      if (message.role === 'tool') {
        const firstOther = last.content.findIndex((block) => block.type !== 'tool_result');
        last.content.splice(firstOther === -1 ? last.content.length : firstOther, 0, ...blocks);
      } else {
        last.content.push(...blocks);
      }
    } else {
      encoded.push({ role, content: blocks });
    }
  });
  return encoded;
}

function encodePart(part: Part, fromSystem: boolean, path: string): Block[] {
  switch (part.type) {
    case 'text':
      if (!part.text) return [];
      {
        // Citations Anthropic gave on an earlier answer go back with it.
        const citations = metadataOf(part.providerMetadata, 'anthropic')?.citations;
        return [{ type: 'text', text: fromSystem ? asSystemReminder(part.text) : part.text, ...(Array.isArray(citations) ? { citations } : {}) }];
      }
    case 'image':
      return [{ type: 'image', source: imageSource(part.url) }];
    case 'tool-call':
      return [{ type: 'tool_use', id: part.id, name: part.name, input: parseInput(part.arguments) }];
    case 'tool-result':
      return [
        {
          type: 'tool_result',
          tool_use_id: part.callId,
          content: part.content.flatMap((inner, index) => encodePart(inner, false, `${path}.content[${index}]`)),
          ...(part.isError ? { is_error: true } : {}),
        },
      ];
    case 'reasoning': {
      // Only what Anthropic itself signed or sealed goes back; reasoning from any other upstream
      // (or unsigned) would be refused, so it is left out.
      const redacted = metadataString(part.providerMetadata, 'anthropic', 'redactedData');
      if (redacted) return [{ type: 'redacted_thinking', data: redacted }];
      const signature = metadataString(part.providerMetadata, 'anthropic', 'signature');
      return signature ? [{ type: 'thinking', thinking: part.text, signature }] : [];
    }
    case 'file':
      return [encodeDocument(part, path)];
    case 'web-search':
      return encodeSearchPart(part);
  }
}

/** A cache breakpoint the client set on a block (kept in the anthropic namespace) stays on it. */
function withCacheControl(part: Part, blocks: Block[]): Block[] {
  const cacheControl = metadataOf(part.providerMetadata, 'anthropic')?.cacheControl;
  if (cacheControl && blocks.length) blocks[blocks.length - 1]!.cache_control = cacheControl;
  return blocks;
}

/**
 * A file as a `document` block: a PDF inline (base64) or by URL, plain text as a text source, an
 * Anthropic file id as a file source.
 * https://docs.anthropic.com/en/docs/build-with-claude/pdf-support and /en/docs/build-with-claude/files
 * Anything else (another provider's file id, a non-PDF binary) is refused, naming the part.
 */
function encodeDocument(part: FilePart, path: string): Block {
  const title = part.filename ? { title: part.filename } : {};
  const { source } = part;
  const mediaType = part.mediaType?.toLowerCase();
  switch (source.kind) {
    case 'text':
      return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: source.text }, ...title };
    case 'base64':
      if (mediaType === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: source.data }, ...title };
      if (mediaType?.startsWith('text/')) {
        return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: Buffer.from(source.data, 'base64').toString('utf8') }, ...title };
      }
      throw invalidRequest(`${path}: Anthropic takes a file inline only as a PDF or plain text, not as ${mediaType ?? 'an unknown media type'}.`, path);
    case 'url':
      if (mediaType && mediaType !== 'application/pdf') throw invalidRequest(`${path}: Anthropic fetches only PDFs by URL, not ${mediaType}.`, path);
      return { type: 'document', source: { type: 'url', url: source.url }, ...title };
    case 'file-id':
      if (source.provider !== 'anthropic') {
        throw invalidRequest(`${path}: the file id '${source.id}' was issued by ${source.provider}, and Anthropic cannot read another provider's files; send the file's data instead.`, path);
      }
      return { type: 'document', source: { type: 'file', file_id: source.id }, ...title };
  }
}

function imageSource(url: string): AnthropicImageSource {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return data ? { type: 'base64', media_type: data[1]!, data: data[2]! } : { type: 'url', url };
}

function parseInput(args: string): unknown {
  if (!args.trim()) return {};
  try {
    const value: unknown = JSON.parse(args);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : { value };
  } catch {
    return { _raw: args };
  }
}

function encodeToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): AnthropicRequestBody['tool_choice'] {
  const disable = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallel === false ? { type: 'auto', ...disable } : undefined;
  if (choice === 'auto') return { type: 'auto', ...disable };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...disable };
  return { type: 'tool', name: choice.name, ...disable };
}

