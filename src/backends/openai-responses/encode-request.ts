import { invalidRequest } from '../../core/errors.js';
import { fileDataUrl, textAsBase64 } from '../../core/file-data.js';
import { metadataString } from '../../core/provider-metadata.js';
import type { CanonicalRequest, FilePart, ImagePart, Message, Part, TextPart } from '../../core/request.js';
import { translatableOrRefuse } from '../../core/same-format-only.js';
import { setBackendWarnings } from '../../core/warnings.js';
import { searchesAsText } from '../../core/web-search.js';
import { encodeResponsesSearchTool } from './web-search.js';
import { breakpointOf, cacheControlsTaken, capabilitiesOf, forwardedWithoutCacheControls, foreignReasoningWarning, promptCacheOptionsFor, replayableMessages, unsentCacheControls } from '../../catalog/index.js';
import { openAiReasoning } from '../openai-chat/reasoning-effort.js';
import type { ResponsesRequestBody, ResponsesRequestContent, ResponsesRequestFile, ResponsesRequestItem } from './api.js';

type Item = ResponsesRequestItem;

/** The Responses body for a canonical request; same-format requests forward the client's body. */
export function encodeResponsesRequest(request: CanonicalRequest, upstreamModel: string, stream: boolean): ResponsesRequestBody {
  // OpenAI's explicit cache controls and diagnostics, only where the model takes them (the catalog's).
  const taken = cacheControlsTaken('openai-responses', upstreamModel);
  if (request.forwardBody?.format === 'responses') {
    // Reasoning another provider made, which the decoder left out of the body or sent as its summary: named.
    const foreign = request.forwardBody.foreignReasoning;
    setBackendWarnings(request, [...(foreign?.length ? [foreignReasoningWarning(foreign, upstreamModel)] : []), ...unsentCacheControls(request, taken, upstreamModel)]);
    // The client's own Responses request (its format decoder checked it), forwarded whole; the session's cache key when it names none.
    const own = forwardedWithoutCacheControls(request.forwardBody.body, 'responses', taken);
    return { ...(request.promptCacheKey ? { prompt_cache_key: request.promptCacheKey } : {}), ...own, model: upstreamModel, stream } as unknown as ResponsesRequestBody;
  }
  const warnings = translatableOrRefuse(request);
  const encode = messageEncoder(taken.breakpoints, warnings);
  const body: ResponsesRequestBody = {
    model: upstreamModel,
    input: searchesAsText(replayableMessages(request, 'openai-responses', upstreamModel, warnings, 'openai')).flatMap((message, index) => encode(message, `messages[${index}]`)),
    store: false,
    include: ['reasoning.encrypted_content'],
    stream,
  };
  const instructions = request.system.map((part) => part.text).join('\n\n');
  // `instructions` is a string, which takes no breakpoint: a system prompt the client marked leads the input as a developer message instead.
  if (taken.breakpoints && request.system.some((part) => breakpointOf(part))) (body.input as Item[]).unshift(...encode({ role: 'system', content: request.system }, 'system'));
  else if (instructions) body.instructions = instructions;
  if (request.tools.length) {
    body.tools = request.tools.map((tool) => ({ type: 'function', name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters }));
    if (request.toolChoice) body.tool_choice = typeof request.toolChoice === 'string' ? request.toolChoice : { type: 'function', name: request.toolChoice.name };
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  // The effort the model takes, and only the sampling it takes at that effort (the catalog's, src/catalog/).
  const reasoning = openAiReasoning(request, 'openai-responses', upstreamModel);
  if (request.temperature !== undefined && !reasoning.unsent.includes('temperature')) body.temperature = request.temperature;
  if (request.topP !== undefined && !reasoning.unsent.includes('topP')) body.top_p = request.topP;
  // Readable summaries only when the client asked to see them; 'omitted' leaves the sealed reasoning alone.
  if (reasoning.effort) body.reasoning = { effort: reasoning.effort as NonNullable<ResponsesRequestBody['reasoning']>['effort'], ...(request.reasoningDisplay === 'summarized' ? { summary: 'auto' as const } : {}) };
  else if (request.reasoningDisplay === 'summarized' && request.reasoningEffort !== 'none') {
    // Summaries asked with no effort: the model reasons at its default effort, summarized; one that does not reason is named.
    const capabilities = capabilitiesOf('openai-responses', upstreamModel);
    if (capabilities && !capabilities.reasoning) warnings.push(`reasoning summaries not requested from ${upstreamModel}: it does not reason.`);
    else body.reasoning = { summary: 'auto' };
  }
  if (request.promptCacheKey) body.prompt_cache_key = request.promptCacheKey;
  if (request.promptCacheRetention) body.prompt_cache_retention = request.promptCacheRetention;
  const cacheOptions = promptCacheOptionsFor(request, taken);
  if (cacheOptions) body.prompt_cache_options = cacheOptions as ResponsesRequestBody['prompt_cache_options'];
  warnings.push(...unsentCacheControls(request, taken, upstreamModel));
  if (request.outputSchema) {
    const { name, schema, strict } = request.outputSchema;
    body.text = { format: { type: 'json_schema', name, schema, ...(strict !== undefined ? { strict } : {}) } };
  } else if (request.jsonObject) {
    body.text = { format: { type: 'json_object' } };
  }
  // The Responses API has no stop sequences, top_k, seed or penalties: https://platform.openai.com/docs/api-reference/responses/create
  if (request.webSearch) {
    const search = encodeResponsesSearchTool(request.webSearch, warnings);
    (body.tools ??= []).push(search.tool);
    if (search.maxToolCalls !== undefined) body.max_tool_calls = search.maxToolCalls;
    // The pages each search found, not only those the answer cites.
    body.include = [...(body.include ?? []), 'web_search_call.action.sources'];
  }
  warnings.push(...reasoning.warnings);
  if (request.stop?.length) warnings.push('stop sequences not sent: the OpenAI Responses API has no such setting.');
  if (request.topK !== undefined) warnings.push('top_k not sent: OpenAI has no such setting.');
  const unsent = (['seed', 'frequencyPenalty', 'presencePenalty'] as const).filter((key) => request[key] !== undefined);
  if (unsent.length) warnings.push(`${unsent.map((key) => SETTING_NAMES[key]).join(', ')} not sent: the OpenAI Responses API has no such setting.`);
  setBackendWarnings(request, warnings);
  return body;
}

const SETTING_NAMES = { seed: 'seed', frequencyPenalty: 'frequency_penalty', presencePenalty: 'presence_penalty' } as const;

const inputImage = (part: ImagePart): ResponsesRequestContent => ({ type: 'input_image', image_url: part.url, ...(part.detail ? { detail: part.detail } : {}) });

/**
 * Messages as input items. Where the target takes explicit cache breakpoints, a client's breakpoint
 * stays on its input part (input_text, input_image, input_file: the parts the Responses API marks);
 * one on an assistant's text, which the API does not mark, is named.
 */
function messageEncoder(breakpoints: boolean, warnings: string[]) {
  const marked = <Content extends ResponsesRequestContent>(content: Content, part: Part): Content => {
    const breakpoint = breakpoints ? breakpointOf(part) : undefined;
    return breakpoint ? ({ ...content, prompt_cache_breakpoint: breakpoint } as Content) : content;
  };
  let unmarked = 0;
  return (message: Message, path: string): Item[] => {
    const texts = message.content.filter((part): part is TextPart => part.type === 'text');
    if (message.role === 'system' && breakpoints && texts.some((part) => breakpointOf(part))) return [{ role: 'developer', content: texts.map((part) => marked({ type: 'input_text', text: part.text }, part)) }];
    if (message.role === 'assistant' && breakpoints && texts.some((part) => breakpointOf(part)) && unmarked++ === 0) {
      warnings.push("prompt_cache_breakpoint on an assistant message's text not sent: the Responses API takes breakpoints on input parts only.");
    }
    return encodeMessage(message, path, marked);
  };
}

function encodeMessage(message: Message, path: string, marked: <Content extends ResponsesRequestContent>(content: Content, part: Part) => Content): Item[] {
  const items: Item[] = [];
  const texts = message.content.filter((part): part is TextPart => part.type === 'text');
  switch (message.role) {
    case 'system':
      items.push({ role: 'developer', content: texts.map((part) => part.text).join('\n\n') });
      break;
    case 'user': {
      const content = message.content.flatMap((part, index): ResponsesRequestContent[] =>
        part.type === 'text'
          ? [marked({ type: 'input_text', text: part.text }, part)]
          : part.type === 'image'
            ? [marked(inputImage(part), part)]
            : part.type === 'file'
              ? [marked(inputFile(part, `${path}.content[${index}]`), part)]
              : [],
      );
      if (content.length) items.push({ role: 'user', content });
      break;
    }
    case 'assistant':
      for (const part of message.content) {
        // Only OpenAI's own encrypted reasoning can be replayed to it.
        const encrypted = part.type === 'reasoning' ? metadataString(part.providerMetadata, 'openai', 'encryptedContent') : undefined;
        if (encrypted) items.push({ type: 'reasoning', summary: [], encrypted_content: encrypted });
      }
      // An output message, typed as the API reference has it: servers that read items by their type (llama.cpp's) refuse one without.
      // https://platform.openai.com/docs/api-reference/responses/create#responses-create-input (input item list, output message)
      if (texts.length) items.push({ type: 'message', role: 'assistant', content: texts.map((part) => ({ type: 'output_text', text: part.text })) });
      for (const part of message.content) {
        if (part.type === 'tool-call') items.push({ type: 'function_call', call_id: part.id, name: part.name, arguments: part.arguments });
      }
      break;
    case 'tool':
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        // An output with images is a list of input_text and input_image parts:
        // https://platform.openai.com/docs/api-reference/responses/create#responses-create-input (function_call_output.output)
        const output = part.content.some((inner) => inner.type === 'image')
          ? part.content.map((inner): ResponsesRequestContent => (inner.type === 'text' ? { type: 'input_text', text: inner.text } : inputImage(inner)))
          : part.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join('');
        items.push({ type: 'function_call_output', call_id: part.callId, output });
      }
      break;
  }
  return items;
}

/**
 * A file as an `input_file` item: inline as a data: URL in `file_data`, by `file_url`, or by an
 * OpenAI `file_id` (https://platform.openai.com/docs/guides/pdf-files?api-mode=responses). Another
 * provider's file id is refused, naming the part.
 */
function inputFile(part: FilePart, path: string): ResponsesRequestFile {
  const filename = part.filename ? { filename: part.filename } : {};
  const { source } = part;
  switch (source.kind) {
    case 'base64':
      return { type: 'input_file', ...filename, file_data: fileDataUrl(part, source.data) };
    case 'text':
      return { type: 'input_file', filename: part.filename ?? 'document.txt', file_data: `data:${part.mediaType ?? 'text/plain'};base64,${textAsBase64(source.text)}` };
    case 'url':
      return { type: 'input_file', ...filename, file_url: source.url };
    case 'file-id':
      if (source.provider !== 'openai') {
        throw invalidRequest(`${path}: the file id '${source.id}' was issued by ${source.provider}, and OpenAI cannot read another provider's files; send the file's data instead.`, path);
      }
      return { type: 'input_file', ...filename, file_id: source.id };
  }
}
