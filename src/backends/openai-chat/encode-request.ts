import { bodyTextOf } from '../../core/body-text.js';
import { memberSpans, withMember, withMembers } from '../../core/json-members.js';
import type { CanonicalRequest, ImagePart, ToolChoice } from '../../core/request.js';
import { translatableOrRefuse } from '../../core/same-format-only.js';
import { setBackendWarnings } from '../../core/warnings.js';
import { leaveOutSearch, searchesAsText } from '../../core/web-search.js';
import type { ChatRequestBody, ChatRequestToolChoice } from './api.js';
import { withChatBreakpoints } from './cache-breakpoints.js';
import { encodeChatMessages } from './encode-messages.js';
import { openAiReasoning, type OpenAiReasoning } from './reasoning-effort.js';
import { applyChatProfile } from './profiles/index.js';
import { cacheControlsTaken, forwardedWithoutCacheControls, promptCacheOptionsFor, replayableMessages, takesPromptCacheKey, unsentCacheControls, type CacheControlsTaken } from '../../catalog/index.js';
import type { ProfileSettings } from './profiles/profile.js';

/** With the backend's provider profile (`backends add … --profile`, profiles/index.ts). */
export interface ChatEncodeOptions extends ProfileSettings {
  /** The backend was declared to take cache_control on content parts (`backends add … --cache-control`). */
  cacheControl?: boolean;
}

/**
 * The Chat Completions body for a canonical request. Same-format requests forward the client's
 * body with the model renamed; streaming always asks for usage, since the ledger needs it.
 */
export function encodeChatRequest(request: CanonicalRequest, upstreamModel: string, stream: boolean, options: ChatEncodeOptions = {}): ChatRequestBody {
  const same = request.forwardBody?.format === 'chat';
  // A Chat client's own web_search_options go to its Chat upstream as it sent them (OpenAI's search
  // models take them). Other formats' search: Chat servers have none of their own to rely on, so it
  // runs only through the route's search target, else it is refused or left out with a warning
  // (leaveOutSearch), never dropped unsaid.
  const unsearched = request.webSearch && !same ? leaveOutSearch(request, 'openai-chat') : undefined;
  // A same-format body is the client's own Chat request (its format decoder checked it), forwarded whole; the session's cache key when it names none.
  const cacheKey = same && request.promptCacheKey && takesPromptCacheKey(upstreamModel) ? { prompt_cache_key: request.promptCacheKey } : {};
  // The effort the model takes, and only the sampling it takes at that effort (the catalog's, src/catalog/).
  const reasoning = same ? undefined : openAiReasoning(request, 'openai-chat', upstreamModel);
  const replayed: string[] = [];
  // OpenAI's explicit cache controls, only where the model and its host take them (the catalog's).
  const taken = cacheControlsTaken('openai-chat', upstreamModel, options.profile);
  const body: ChatRequestBody = same
    ? ({ ...cacheKey, ...forwardedWithoutCacheControls(request.forwardBody!.body, 'chat', taken), model: upstreamModel } as unknown as ChatRequestBody)
    : buildBody(request, upstreamModel, options, reasoning!, replayed, taken);
  // An upstream that caches only at breakpoints gets them where the client set none, forwarded or not.
  if (options.cacheControl && Array.isArray(body.messages)) body.messages = withChatBreakpoints(body.messages);
  // Chat Completions has no top_k: https://platform.openai.com/docs/api-reference/chat/create
  const warnings = same ? [] : translatableOrRefuse(request);
  warnings.push(...replayed, ...unsentCacheControls(request, taken, upstreamModel));
  if (!same && request.topK !== undefined) warnings.push('top_k not sent: OpenAI has no such setting.');
  if (!same && request.reasoningDisplay) warnings.push(`reasoning display '${request.reasoningDisplay}' not applied (thinking.display, reasoning.summary): Chat Completions has no setting for how reasoning is shown.`);
  if (!same && hasImageDetail(request, 'original')) warnings.push("image detail 'original' not sent: Chat Completions takes low, high or auto.");
  if (unsearched) warnings.push(unsearched);
  if (reasoning) warnings.push(...reasoning.warnings);
  setBackendWarnings(request, warnings);
  if (stream) {
    body.stream = true;
    body.stream_options = { ...(body.stream_options as object | undefined), include_usage: true };
  } else {
    delete body.stream;
    delete body.stream_options;
  }
  applyChatProfile(body, request, options);
  return body;
}

/** The forwarded body's members the router sets on a streamed call, in this order when the client's text has none of them. */
const STREAM_MEMBERS = ['model', 'stream', 'stream_options'];
const MODEL_MEMBER = ['model'];

/**
 * encodeChatRequest's body for a same-format request as text: the client's own text (core/body-text.ts)
 * with the model set, and on a streamed call `stream` and `stream_options.include_usage`, the same
 * JSON as the body encodeChatRequest writes, member order included. Undefined, to encode the body,
 * where that would take more than setting members: a session's cache key to add, breakpoints, a
 * provider profile, or `stream` members to remove from a call that does not stream.
 */
export function forwardedChatText(request: CanonicalRequest, upstreamModel: string, stream: boolean, options: ChatEncodeOptions = {}): string | undefined {
  const forwardBody = request.forwardBody;
  if (forwardBody?.format !== 'chat' || options.cacheControl || options.profile) return undefined;
  if (request.promptCacheKey && takesPromptCacheKey(upstreamModel)) return undefined;
  // Cache controls the target does not take come out of the body, named.
  if (unsentCacheControls(request, cacheControlsTaken('openai-chat', upstreamModel, options.profile), upstreamModel).length) return undefined;
  const text = bodyTextOf(forwardBody.body);
  if (text === undefined) return undefined;
  const { body } = forwardBody;
  let edited: string;
  if (!stream) {
    if (body.stream !== undefined || body.stream_options !== undefined) return undefined;
    edited = withMembers(text, MODEL_MEMBER, [JSON.stringify(upstreamModel)]);
  } else {
    // The client's stream_options with include_usage set (the ledger needs the usage), or just that.
    const current = body.stream_options === undefined || body.stream_options === null ? undefined : memberSpans(text, 'stream_options').at(-1);
    const streamOptions = current ? withMember(text.slice(current.start, current.end), 'include_usage', 'true') : '{"include_usage":true}';
    edited = withMembers(text, STREAM_MEMBERS, [JSON.stringify(upstreamModel), 'true', streamOptions]);
  }
  setBackendWarnings(request, []);
  return edited;
}

function buildBody(request: CanonicalRequest, model: string, options: ChatEncodeOptions, reasoning: OpenAiReasoning, warnings: string[], taken: CacheControlsTaken): ChatRequestBody {
  // Reasoning another model wrote that this one cannot read: named, and carried as its provider allows (src/catalog/reasoning-reads.ts).
  const messages = encodeChatMessages({ ...request, messages: searchesAsText(replayableMessages(request, 'openai-chat', model, warnings, 'openrouter')) }, { cacheControl: options.cacheControl === true, breakpoints: taken.breakpoints });
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
  if (request.temperature !== undefined && !reasoning.unsent.includes('temperature')) body.temperature = request.temperature;
  if (request.topP !== undefined && !reasoning.unsent.includes('topP')) body.top_p = request.topP;
  if (request.stop?.length) body.stop = request.stop;
  if (reasoning.effort) body.reasoning_effort = reasoning.effort as ChatRequestBody['reasoning_effort'];
  if (request.outputSchema) {
    const { name, schema, strict } = request.outputSchema;
    body.response_format = { type: 'json_schema', json_schema: { name, schema, ...(strict !== undefined ? { strict } : {}) } };
  } else if (request.jsonObject) {
    body.response_format = { type: 'json_object' };
  }
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty;
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty;
  // Some compatible servers refuse fields they do not know (Mistral, Groq); the cache key and
  // retention, hints only, go to OpenAI's model families, as reasoning_effort goes to those that reason.
  if (takesPromptCacheKey(model)) {
    if (request.promptCacheKey) body.prompt_cache_key = request.promptCacheKey;
    if (request.promptCacheRetention) body.prompt_cache_retention = request.promptCacheRetention;
  }
  const cacheOptions = promptCacheOptionsFor(request, taken);
  if (cacheOptions) body.prompt_cache_options = cacheOptions as ChatRequestBody['prompt_cache_options'];
  return body;
}

function encodeToolChoice(choice: ToolChoice): ChatRequestToolChoice {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/** `$schema` and similar meta keys (sent by some clients) are refused by several compatible servers. */
function stripSchemaMeta(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _schema, ...rest } = schema;
  return rest;
}

/** Whether any image, in a message or a tool result, asks for this detail. */
function hasImageDetail(request: CanonicalRequest, detail: ImagePart['detail']): boolean {
  return request.messages.some((message) =>
    message.content.some((part) => (part.type === 'image' && part.detail === detail) || (part.type === 'tool-result' && part.content.some((inner) => inner.type === 'image' && inner.detail === detail))),
  );
}
