import { invalidRequest } from '../../core/errors.js';
import { fileLabel, mediaTypeFromName, parseDataUrl } from '../../core/file-data.js';
import { metadataString } from '../../core/provider-metadata.js';
import type { CanonicalRequest, FilePart, ImagePart, Message, Part, ToolResultPart } from '../../core/request.js';
import { translatableOrRefuse } from '../../core/same-format-only.js';
import { setBackendWarnings } from '../../core/warnings.js';
import { leaveOutSearch, searchesAsText, webSearchAsText } from '../../core/web-search.js';
import type { ConverseContentBlock, ConverseMessage, ConverseRequestBody, ConverseToolResultContent } from './converse-api.js';
import { converseToolUseId } from './converse-tool-id.js';
import { cacheControlsTaken, unsentCacheControls } from '../../catalog/index.js';

/** The namespace this backend keeps Converse's reasoning signatures under. */
export const BEDROCK_METADATA = 'bedrock';

/** ImageBlock formats (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html). */
const IMAGE_FORMATS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** DocumentBlock formats (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_DocumentBlock.html). */
const DOCUMENT_FORMATS: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

/**
 * The Converse body for a canonical request, for every Bedrock model that is not Claude
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html); ConverseStream
 * takes the same body. What Converse has no field for is named in the warnings, or refused with a
 * 400 when leaving it out would change what the model is shown (an image by URL, another
 * provider's file id).
 */
export function encodeConverseRequest(request: CanonicalRequest, upstreamModel: string): ConverseRequestBody {
  // OpenAI's explicit cache controls, which Converse does not take, are named.
  const warnings = [...translatableOrRefuse(request), ...unsentCacheControls(request, cacheControlsTaken('bedrock', upstreamModel), upstreamModel)];
  if (request.webSearch) warnings.push(leaveOutSearch(request, 'bedrock'));
  const history = request.messages.some((message) => message.content.some((part) => part.type === 'tool-call' || part.type === 'tool-result'));
  // tool_choice 'none' (Converse has no such choice) is kept by offering no tools, when no earlier
  // turn holds tool blocks, which Converse takes only beside a toolConfig.
  const offered = request.tools.length > 0 && !(request.toolChoice === 'none' && !history);
  // Tool blocks with no tools offered are refused by Converse; they are said in words instead.
  const toolsAsText = history && !offered;
  if (toolsAsText) warnings.push('earlier tool calls and results sent as text: Converse takes tool blocks only when the request offers tools.');
  const body: ConverseRequestBody = { messages: encodeMessages(searchesAsText(request.messages), warnings, toolsAsText) };
  const system = request.system.filter((part) => part.text !== '').map((part) => ({ text: part.text }));
  if (system.length) body.system = system;

  const config: NonNullable<ConverseRequestBody['inferenceConfig']> = {};
  if (request.maxOutputTokens !== undefined) config.maxTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.stop?.length) config.stopSequences = request.stop;
  if (Object.keys(config).length) body.inferenceConfig = config;

  if (offered) {
    body.toolConfig = {
      tools: request.tools.map((tool) => {
        const { $schema: _schema, ...json } = tool.parameters;
        return { toolSpec: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), inputSchema: { json } } };
      }),
    };
    const choice = request.toolChoice;
    // ToolChoice is auto, any or one tool (API_runtime_ToolChoice); there is no "none".
    if (choice === 'auto') body.toolConfig.toolChoice = { auto: {} };
    else if (choice === 'required') body.toolConfig.toolChoice = { any: {} };
    else if (typeof choice === 'object') body.toolConfig.toolChoice = { tool: { name: choice.name } };
    else if (choice === 'none') warnings.push("tool_choice 'none' not applied: Converse has no such choice; the tools are offered and the model may call one.");
    if (request.parallelToolCalls === false) warnings.push('parallel_tool_calls not sent: Converse has no such setting, and the model may call several tools at once.');
  }

  // Converse's inferenceConfig has only these four; the rest is per model family, so it is named, not guessed.
  const unsent: string[] = [];
  if (request.topK !== undefined) unsent.push('top_k');
  if (request.seed !== undefined) unsent.push('seed');
  if (request.frequencyPenalty !== undefined) unsent.push('frequency_penalty');
  if (request.presencePenalty !== undefined) unsent.push('presence_penalty');
  if (request.reasoningEffort !== undefined || request.reasoningBudget !== undefined) unsent.push('reasoning effort');
  if (request.outputSchema) unsent.push(`response format (JSON schema '${request.outputSchema.name}')`);
  else if (request.jsonObject) unsent.push('response format (JSON object)');
  for (const name of unsent) warnings.push(`${name} not sent: Bedrock's Converse API has no common setting for it; the model's own default applies.`);
  if (request.messages.some((message) => message.content.some((part) => detailed(part) || (part.type === 'tool-result' && part.content.some(detailed))))) {
    warnings.push('image detail not sent: Converse has no per-image detail setting.');
  }
  setBackendWarnings(request, warnings);
  return body;
}

const detailed = (part: Part): boolean => part.type === 'image' && part.detail !== undefined && part.detail !== 'auto';

/**
 * Canonical messages as Converse turns: tool results and mid-conversation system text go in user
 * turns (Converse has no tool or system role in `messages`), and neighbouring turns of one role
 * are joined, as Converse wants user and assistant turns to alternate.
 */
function encodeMessages(messages: Message[], warnings: string[], toolsAsText: boolean): ConverseMessage[] {
  const out: ConverseMessage[] = [];
  let droppedReasoning = false;
  messages.forEach((message, messageIndex) => {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks: ConverseContentBlock[] = [];
    message.content.forEach((part, partIndex) => {
      const path = `messages[${messageIndex}].content[${partIndex}]`;
      if (part.type === 'reasoning') {
        const block = reasoningBlock(part.text, part.providerMetadata);
        if (block && role === 'assistant') blocks.push(block);
        else if (part.text) droppedReasoning = true;
        return;
      }
      const said = toolsAsText ? toolPartAsText(part) : undefined;
      blocks.push(...(said ?? encodePart(part, path)));
    });
    if (!blocks.length) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  });
  if (droppedReasoning) warnings.push('earlier reasoning not sent: it was not made by this Bedrock model family, and Converse replays only its own.');
  return out;
}

/** Converse's own reasoning, signed or redacted, goes back as it came; any other reasoning means nothing to it. */
function reasoningBlock(text: string, metadata: Part['providerMetadata']): ConverseContentBlock | undefined {
  const redacted = metadataString(metadata, BEDROCK_METADATA, 'redactedContent');
  if (redacted !== undefined) return { reasoningContent: { redactedContent: redacted } };
  const signature = metadataString(metadata, BEDROCK_METADATA, 'signature');
  return signature !== undefined ? { reasoningContent: { reasoningText: { text, signature } } } : undefined;
}

function encodePart(part: Exclude<Part, { type: 'reasoning' }>, path: string): ConverseContentBlock[] {
  switch (part.type) {
    case 'text':
      // Converse refuses a blank text block.
      return part.text.trim() ? [{ text: part.text }] : [];
    case 'image':
      return [{ image: encodeImage(part, path) }];
    case 'file':
      return [encodeFile(part, path)];
    case 'tool-call':
      return [{ toolUse: { toolUseId: converseToolUseId(part.id), name: part.name, input: parseArguments(part.arguments, `${path}.arguments`) } }];
    case 'tool-result':
      return [encodeToolResult(part, path)];
    case 'web-search':
      return [{ text: webSearchAsText(part) }];
  }
}

/** A tool call or result in words, for a request that offers no tools; undefined for any other part. */
function toolPartAsText(part: Exclude<Part, { type: 'reasoning' }>): ConverseContentBlock[] | undefined {
  if (part.type === 'tool-call') return [{ text: `[Called tool ${part.name} (call ${part.id}) with ${part.arguments || '{}'}]` }];
  if (part.type !== 'tool-result') return undefined;
  const text = part.content.map((inner) => (inner.type === 'text' ? inner.text : '[image]')).join('\n');
  return [{ text: `[Result of call ${part.callId}${part.isError ? ', an error' : ''}]:\n${text}` }];
}

function encodeToolResult(part: ToolResultPart, path: string): ConverseContentBlock {
  const content: ConverseToolResultContent[] = part.content.flatMap((inner, index): ConverseToolResultContent[] => {
    if (inner.type === 'image') return [{ image: encodeImage(inner, `${path}.content[${index}]`) }];
    return inner.text ? [{ text: inner.text }] : [];
  });
  // `status` says the tool failed (API_runtime_ToolResultBlock); success is the default and is not sent.
  return { toolResult: { toolUseId: converseToolUseId(part.callId), content, ...(part.isError ? { status: 'error' as const } : {}) } };
}

/** Converse takes image bytes (or S3), never a URL it would fetch: a URL is refused, naming the part. */
function encodeImage(part: ImagePart, path: string): { format: string; source: { bytes: string } } {
  const data = parseDataUrl(part.url);
  if (!data) throw invalidRequest(`${path}: Bedrock's Converse API takes images only as data, not by URL; send the image as a base64 data: URL.`, path);
  const format = IMAGE_FORMATS[data.mediaType];
  if (!format) throw invalidRequest(`${path}: Bedrock's Converse API takes PNG, JPEG, GIF or WebP images, not ${data.mediaType.slice(0, 100)}.`, path);
  return { format, source: { bytes: data.data } };
}

/** A document as a DocumentBlock; plain text as text. A URL or another provider's file id cannot be sent, and is refused. */
function encodeFile(part: FilePart, path: string): ConverseContentBlock {
  const source = part.source;
  if (source.kind === 'text') return { text: part.filename ? `${part.filename}:\n${source.text}` : source.text };
  if (source.kind !== 'base64') {
    const what = source.kind === 'url' ? 'a URL' : `a file id issued by ${source.provider}`;
    throw invalidRequest(`${path}: ${fileLabel(part)} is ${what}, and Bedrock's Converse API takes documents only as data; send the file's data instead.`, path);
  }
  const parsed = parseDataUrl(source.data);
  const mediaType = parsed?.mediaType ?? part.mediaType ?? mediaTypeFromName(part.filename) ?? 'application/pdf';
  const format = DOCUMENT_FORMATS[mediaType];
  if (!format) throw invalidRequest(`${path}: Bedrock's Converse API takes PDF, CSV, Word, Excel, HTML, text or Markdown documents, not ${mediaType.slice(0, 100)}.`, path);
  return { document: { format, name: documentName(part.filename, path), source: { bytes: parsed?.data ?? source.data } } };
}

/**
 * A DocumentBlock's name allows letters, digits, single spaces, hyphens, parentheses and square
 * brackets only; the extension is in `format`. Another name becomes the nearest allowed one.
 */
function documentName(filename: string | undefined, path: string): string {
  const base = (filename ?? '').replace(/\.[A-Za-z0-9]+$/, '');
  const name = base.replace(/[^A-Za-z0-9\s\-()[\]]/g, '-').replace(/\s+/g, ' ').trim().slice(0, 200);
  return name || `document ${path.replace(/[^0-9]+/g, ' ').trim()}`;
}

/** toolUse.input is a JSON object; arguments that are not JSON are refused here, naming the part. */
function parseArguments(args: string, path: string): unknown {
  if (!args.trim()) return {};
  try {
    const value: unknown = JSON.parse(args);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : { value };
  } catch {
    throw invalidRequest(`${path}: the tool call's arguments are not JSON, and Bedrock's Converse API takes them only as a JSON object.`, path);
  }
}
