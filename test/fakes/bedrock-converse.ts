import { eventStreamMessage } from './event-stream-frames.js';

/**
 * Bedrock's Converse API as the fake serves it, checked against the documented grammar
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html) and answered
 * by the Anthropic fake's scripted model: the request is read into an Anthropic body, the answer
 * written back as Converse's reply or ConverseStream's events.
 */

const TOP_LEVEL = new Set(['messages', 'system', 'inferenceConfig', 'toolConfig', 'additionalModelRequestFields', 'guardrailConfig', 'promptVariables', 'additionalModelResponseFieldPaths', 'requestMetadata', 'performanceConfig']);
const INFERENCE = new Set(['maxTokens', 'temperature', 'topP', 'stopSequences']);
const BLOCKS = new Set(['text', 'image', 'document', 'toolUse', 'toolResult', 'reasoningContent', 'cachePoint', 'guardContent', 'video']);
const IMAGE_FORMATS = new Set(['png', 'jpeg', 'gif', 'webp']);
const DOCUMENT_FORMATS = new Set(['pdf', 'csv', 'doc', 'docx', 'xls', 'xlsx', 'html', 'txt', 'md']);
const TOOL_USE_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const DOCUMENT_NAME = /^[A-Za-z0-9\-()[\]]+(?: [A-Za-z0-9\-()[\]]+)*$/;

const isObject = (value: unknown): value is Record<string, any> => value !== null && typeof value === 'object' && !Array.isArray(value);
const only = (value: Record<string, unknown>): string | undefined => (Object.keys(value).length === 1 ? Object.keys(value)[0] : undefined);

/** What AWS would refuse in a Converse body (a ValidationException's message), or undefined. */
export function converseProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'Malformed input request, please reformat your input and try again.';
  for (const key of Object.keys(body)) if (!TOP_LEVEL.has(key)) return `Malformed input request: extraneous key [${key}] is not permitted.`;
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'A conversation must start with a user message.';
  if (body.system !== undefined && (!Array.isArray(body.system) || !body.system.every((block: unknown) => isObject(block) && typeof block.text === 'string' && block.text !== ''))) return 'The system field must be a list of text blocks.';
  if (body.inferenceConfig !== undefined) {
    if (!isObject(body.inferenceConfig)) return 'The inferenceConfig field must be an object.';
    for (const key of Object.keys(body.inferenceConfig)) if (!INFERENCE.has(key)) return `Malformed input request: extraneous key [inferenceConfig.${key}] is not permitted.`;
  }
  const toolNames = new Set<string>();
  if (body.toolConfig !== undefined) {
    const config = body.toolConfig;
    if (!isObject(config) || !Array.isArray(config.tools) || config.tools.length === 0) return 'The toolConfig field must name at least one tool.';
    for (const tool of config.tools) {
      const spec = isObject(tool) ? tool.toolSpec : undefined;
      if (!isObject(spec) || typeof spec.name !== 'string' || !TOOL_NAME.test(spec.name) || !isObject(spec.inputSchema) || !isObject(spec.inputSchema.json)) return 'Each tool must be a toolSpec with a valid name and inputSchema.json.';
      toolNames.add(spec.name);
    }
    if (config.toolChoice !== undefined) {
      const kind = isObject(config.toolChoice) ? only(config.toolChoice) : undefined;
      if (kind !== 'auto' && kind !== 'any' && kind !== 'tool') return 'toolChoice must be exactly one of auto, any or tool.';
      if (kind === 'tool' && !toolNames.has(config.toolChoice.tool?.name)) return 'toolChoice.tool names no tool in toolConfig.';
    }
  }
  let previousCalls = new Set<string>();
  for (const [index, message] of (body.messages as unknown[]).entries()) {
    if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant')) return `messages.${index}.role must be user or assistant.`;
    if (index === 0 && message.role !== 'user') return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
    if (index > 0 && (body.messages[index - 1] as { role: string }).role === message.role) return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
    if (!Array.isArray(message.content) || message.content.length === 0) return `messages.${index}.content must not be empty.`;
    const calls = new Set<string>();
    for (const [at, block] of (message.content as unknown[]).entries()) {
      const where = `messages.${index}.content.${at}`;
      const kind = isObject(block) ? only(block) : undefined;
      if (!kind || !BLOCKS.has(kind)) return `The content block at ${where} must set exactly one known member.`;
      const value = (block as Record<string, any>)[kind];
      switch (kind) {
        case 'text':
          if (typeof value !== 'string' || !value.trim()) return `The text field in the ContentBlock object at ${where} is blank. Add text to the text field, and try again.`;
          break;
        case 'image':
          if (!isObject(value) || !IMAGE_FORMATS.has(value.format) || !isObject(value.source) || typeof value.source.bytes !== 'string') return `The image block at ${where} must have a format and source.bytes.`;
          break;
        case 'document':
          if (!isObject(value) || !DOCUMENT_FORMATS.has(value.format) || typeof value.name !== 'string' || !DOCUMENT_NAME.test(value.name) || !isObject(value.source)) return `The document block at ${where} must have a format, a valid name and a source.`;
          break;
        case 'toolUse':
          if (message.role !== 'assistant') return `${where}: toolUse blocks are only allowed in assistant messages.`;
          if (!isObject(value) || typeof value.toolUseId !== 'string' || !TOOL_USE_ID.test(value.toolUseId) || typeof value.name !== 'string' || !isObject(value.input)) return `The toolUse block at ${where} must have a valid toolUseId, a name and an input object.`;
          calls.add(value.toolUseId);
          break;
        case 'toolResult':
          if (message.role !== 'user') return `${where}: toolResult blocks are only allowed in user messages.`;
          if (!isObject(value) || typeof value.toolUseId !== 'string' || !Array.isArray(value.content)) return `The toolResult block at ${where} must have a toolUseId and content.`;
          if (!previousCalls.has(value.toolUseId)) return `The toolUseId ${value.toolUseId} at ${where} matches no toolUse block in the previous turn.`;
          if (value.status !== undefined && value.status !== 'success' && value.status !== 'error') return `The toolResult status at ${where} must be success or error.`;
          for (const inner of value.content) {
            const innerKind = isObject(inner) ? only(inner) : undefined;
            if (innerKind !== 'text' && innerKind !== 'json' && innerKind !== 'image' && innerKind !== 'document') return `The toolResult content at ${where} must be text, json, image or document blocks.`;
          }
          break;
      }
      if ((kind === 'toolUse' || kind === 'toolResult') && body.toolConfig === undefined) return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
    }
    previousCalls = calls;
  }
  return undefined;
}

/** The Converse body as the Anthropic fake's request (the scripted model reads that). */
export function converseAsAnthropic(body: Record<string, any>, model: string, stream: boolean): Record<string, unknown> {
  const messages = (body.messages as Array<{ role: string; content: Array<Record<string, any>> }>).map((message) => ({
    role: message.role,
    content: message.content.flatMap((block): unknown[] => {
      if (block.text !== undefined) return [{ type: 'text', text: block.text }];
      if (block.image) return [{ type: 'image', source: { type: 'base64', media_type: `image/${block.image.format}`, data: block.image.source.bytes } }];
      if (block.document) return [{ type: 'text', text: `[document ${block.document.name}]` }];
      if (block.toolUse) return [{ type: 'tool_use', id: block.toolUse.toolUseId, name: block.toolUse.name, input: block.toolUse.input }];
      if (block.toolResult) {
        const text = (block.toolResult.content as Array<Record<string, any>>).map((inner) => inner.text ?? JSON.stringify(inner.json ?? '')).join('\n');
        return [{ type: 'tool_result', tool_use_id: block.toolResult.toolUseId, content: text, ...(block.toolResult.status === 'error' ? { is_error: true } : {}) }];
      }
      return [];
    }),
  }));
  const config = body.inferenceConfig ?? {};
  const choice = body.toolConfig?.toolChoice;
  return {
    model,
    stream,
    max_tokens: config.maxTokens ?? 1024,
    messages,
    ...(body.system ? { system: body.system.map((block: { text: string }) => block.text).join('\n') } : {}),
    ...(config.stopSequences ? { stop_sequences: config.stopSequences } : {}),
    ...(body.toolConfig
      ? { tools: body.toolConfig.tools.map(({ toolSpec }: any) => ({ name: toolSpec.name, ...(toolSpec.description ? { description: toolSpec.description } : {}), input_schema: toolSpec.inputSchema.json })) }
      : {}),
    ...(choice ? { tool_choice: choice.auto ? { type: 'auto' } : choice.any ? { type: 'any' } : { type: 'tool', name: choice.tool.name } } : {}),
  };
}

/** Anthropic's usage as TokenUsage: cache reads and writes apart from inputTokens, totalTokens their sum with the output. */
function tokenUsage(usage: Record<string, number> | undefined): Record<string, number> {
  const input = usage?.input_tokens ?? 0;
  const output = usage?.output_tokens ?? 0;
  const read = usage?.cache_read_input_tokens ?? 0;
  const write = usage?.cache_creation_input_tokens ?? 0;
  return { inputTokens: input, outputTokens: output, totalTokens: input + output + read + write, ...(read ? { cacheReadInputTokens: read } : {}), ...(write ? { cacheWriteInputTokens: write } : {}) };
}

/** The Anthropic fake's reply as Converse's. */
export function anthropicReplyAsConverse(reply: Record<string, any>): Record<string, unknown> {
  const content = (reply.content as Array<Record<string, any>>).flatMap((block): unknown[] => {
    if (block.type === 'text') return [{ text: block.text }];
    if (block.type === 'tool_use') return [{ toolUse: { toolUseId: block.id, name: block.name, input: block.input } }];
    if (block.type === 'thinking') return [{ reasoningContent: { reasoningText: { text: block.thinking, ...(block.signature ? { signature: block.signature } : {}) } } }];
    return [];
  });
  return { output: { message: { role: 'assistant', content } }, stopReason: reply.stop_reason, usage: tokenUsage(reply.usage), metrics: { latencyMs: 12 } };
}

const converseEvent = (type: string, payload: Record<string, unknown>): Buffer =>
  eventStreamMessage({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' }, JSON.stringify({ ...payload, p: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0' }));

/** The Anthropic fake's stream events as ConverseStream's event-stream messages, in order. */
export function anthropicStreamAsConverse(events: Array<Record<string, any>>): Buffer[] {
  const out: Buffer[] = [];
  let stopReason = 'end_turn';
  let usage: Record<string, number> = {};
  for (const event of events) {
    const index = event.index as number;
    switch (event.type) {
      case 'message_start':
        usage = { ...event.message?.usage };
        out.push(converseEvent('messageStart', { role: 'assistant' }));
        break;
      case 'content_block_start':
        if (event.content_block?.type === 'tool_use') out.push(converseEvent('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: event.content_block.id, name: event.content_block.name } } }));
        break;
      case 'content_block_delta': {
        const delta = event.delta;
        const converse =
          delta.type === 'text_delta' ? { text: delta.text }
          : delta.type === 'input_json_delta' ? { toolUse: { input: delta.partial_json } }
          : delta.type === 'thinking_delta' ? { reasoningContent: { text: delta.thinking } }
          : delta.type === 'signature_delta' ? { reasoningContent: { signature: delta.signature } }
          : undefined;
        if (converse) out.push(converseEvent('contentBlockDelta', { contentBlockIndex: index, delta: converse }));
        break;
      }
      case 'content_block_stop':
        out.push(converseEvent('contentBlockStop', { contentBlockIndex: index }));
        break;
      case 'message_delta':
        stopReason = event.delta?.stop_reason ?? stopReason;
        usage = { ...usage, ...event.usage };
        break;
      case 'message_stop':
        out.push(converseEvent('messageStop', { stopReason }), converseEvent('metadata', { usage: tokenUsage(usage), metrics: { latencyMs: 12 } }));
        break;
    }
  }
  return out;
}
