import { invalidRequest } from '../../core/errors.js';
import type { CanonicalRequest, ImagePart, Message, Part, TextPart, ToolChoice, ToolSpec } from '../../core/request.js';
import type { Decoded } from '../client-format.js';
import {
  asArray,
  asObject,
  optionalBoolean,
  optionalInteger,
  optionalMetadata,
  optionalNumber,
  optionalString,
  requiredString,
  wrongType,
  type Json,
} from '../shared/read-fields.js';
import { parseReasoningEffort } from '../shared/reasoning-effort.js';

/** Request fields the Responses body echoes back. */
export interface ResponsesOptions {
  instructions: string | null;
  tools: unknown[];
  toolChoice: unknown;
  store: boolean;
  previousResponseId: string | null;
  reasoning: { effort: string | null; summary: string | null };
  text: unknown;
  truncation: string;
  metadata: Record<string, string>;
}

/** Decodes an OpenAI Responses request body: `input` as a string or a list of items. */
export function decodeResponsesRequest(body: unknown): Decoded<ResponsesOptions> {
  const json = asObject(body, 'body');
  const model = requiredString(json, 'model');
  if (json.input === undefined || json.input === null) throw invalidRequest('input: this field is required.', 'input', 'missing_required_parameter');
  const instructions = optionalString(json, 'instructions') ?? null;
  const system: TextPart[] = instructions ? [{ type: 'text', text: instructions }] : [];
  const messages: Message[] = [];
  if (typeof json.input === 'string') {
    messages.push({ role: 'user', content: [{ type: 'text', text: json.input }] });
  } else {
    asArray(json.input, 'input').forEach((raw, index) => {
      const message = decodeItem(raw, `input[${index}]`);
      if (!message) return;
      // Leading system/developer items join the instructions; later ones stay in place.
      if (message.role === 'system' && messages.length === 0) system.push(...(message.content as TextPart[]));
      else appendMessage(messages, message);
    });
  }

  const rawTools = json.tools === undefined || json.tools === null ? [] : asArray(json.tools, 'tools');
  const request: CanonicalRequest = { model, system, messages, tools: decodeTools(rawTools) };
  const toolChoice = decodeToolChoice(json.tool_choice);
  if (toolChoice) request.toolChoice = toolChoice;
  const parallel = optionalBoolean(json, 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  const maxTokens = optionalInteger(json, 'max_output_tokens');
  if (maxTokens !== undefined) request.maxOutputTokens = maxTokens;
  const temperature = optionalNumber(json, 'temperature', 'temperature', { min: 0, max: 2 });
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(json, 'top_p', 'top_p', { min: 0, max: 1 });
  if (topP !== undefined) request.topP = topP;
  const reasoning = json.reasoning === undefined || json.reasoning === null ? {} : asObject(json.reasoning, 'reasoning');
  const effortText = optionalString(reasoning, 'effort', 'reasoning.effort');
  const effort = parseReasoningEffort(effortText, 'reasoning.effort');
  if (effort) request.reasoningEffort = effort;
  const metadata = optionalMetadata(json, 'metadata') ?? {};
  if (Object.keys(metadata).length) request.metadata = metadata;

  request.passthrough = { format: 'responses', body: json };
  return {
    request,
    stream: optionalBoolean(json, 'stream') ?? false,
    options: {
      instructions,
      tools: rawTools,
      toolChoice: json.tool_choice ?? 'auto',
      store: optionalBoolean(json, 'store') ?? true,
      previousResponseId: optionalString(json, 'previous_response_id') ?? null,
      reasoning: { effort: effortText ?? null, summary: optionalString(reasoning, 'summary', 'reasoning.summary') ?? null },
      text: json.text ?? { format: { type: 'text' } },
      truncation: optionalString(json, 'truncation') ?? 'disabled',
      metadata,
    },
  };
}

/** Consecutive items of one role (an assistant's text and its function calls) form one message. */
function appendMessage(messages: Message[], message: Message): void {
  const last = messages.at(-1);
  if (last && last.role === message.role && message.role !== 'system') last.content.push(...message.content);
  else messages.push(message);
}

function decodeItem(raw: unknown, path: string): Message | undefined {
  const item = asObject(raw, path);
  const type = optionalString(item, 'type', `${path}.type`) ?? 'message';
  switch (type) {
    case 'message': {
      const role = requiredString(item, 'role', `${path}.role`);
      if (role === 'system' || role === 'developer') return { role: 'system', content: decodeContent(item.content, `${path}.content`) as TextPart[] };
      if (role === 'user' || role === 'assistant') return { role, content: decodeContent(item.content, `${path}.content`) };
      throw invalidRequest(`${path}.role: expected one of user, assistant, system, developer.`, `${path}.role`);
    }
    case 'function_call':
      return {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            id: requiredString(item, 'call_id', `${path}.call_id`),
            name: requiredString(item, 'name', `${path}.name`),
            arguments: optionalString(item, 'arguments', `${path}.arguments`) ?? '{}',
          },
        ],
      };
    case 'function_call_output': {
      const output = item.output;
      const content: Array<TextPart | ImagePart> =
        typeof output === 'string' ? [{ type: 'text', text: output }] : (decodeContent(output, `${path}.output`) as Array<TextPart | ImagePart>);
      return { role: 'tool', content: [{ type: 'tool-result', callId: requiredString(item, 'call_id', `${path}.call_id`), content }] };
    }
    default:
      // Items replayed from earlier outputs that no backend here consumes (reasoning summaries,
      // built-in tool calls) are accepted and left out of the upstream request.
      return undefined;
  }
}

function decodeContent(raw: unknown, path: string): Part[] {
  if (raw === undefined || raw === null) throw invalidRequest(`${path}: this field is required.`, path, 'missing_required_parameter');
  if (typeof raw === 'string') return [{ type: 'text', text: raw }];
  if (!Array.isArray(raw)) throw wrongType(path, 'a string or an array of content parts');
  const parts: Part[] = [];
  raw.forEach((item, index) => {
    const where = `${path}[${index}]`;
    const part = asObject(item, where);
    const type = requiredString(part, 'type', `${where}.type`);
    if (type === 'input_text' || type === 'output_text' || type === 'text') parts.push({ type: 'text', text: requiredString(part, 'text', `${where}.text`) });
    else if (type === 'refusal') parts.push({ type: 'text', text: requiredString(part, 'refusal', `${where}.refusal`) });
    else if (type === 'input_image') {
      const url = optionalString(part, 'image_url', `${where}.image_url`);
      if (url) parts.push({ type: 'image', url });
    }
  });
  return parts;
}

function decodeTools(raw: unknown[]): ToolSpec[] {
  const tools: ToolSpec[] = [];
  raw.forEach((item, index) => {
    const tool = asObject(item, `tools[${index}]`);
    if (tool.type !== 'function') return; // built-in tool types are accepted; the client may run them
    const spec: ToolSpec = {
      name: requiredString(tool, 'name', `tools[${index}].name`),
      parameters: tool.parameters === undefined || tool.parameters === null ? { type: 'object', properties: {} } : asObject(tool.parameters, `tools[${index}].parameters`),
    };
    const description = optionalString(tool, 'description', `tools[${index}].description`);
    if (description !== undefined) spec.description = description;
    tools.push(spec);
  });
  return tools;
}

function decodeToolChoice(raw: unknown): ToolChoice | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw === 'auto' || raw === 'none' || raw === 'required') return raw;
  const choice = asObject(raw, 'tool_choice') as Json;
  if (choice.type === 'function' && typeof choice.name === 'string') return { name: choice.name };
  return undefined; // built-in tool choices: nothing to force upstream
}
