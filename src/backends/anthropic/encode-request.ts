import type { CanonicalRequest, Message, Part, ToolChoice } from '../../core/request.js';
import { thinkingBudget } from './thinking-budget.js';

/** Anthropic requires max_tokens; this is what a request that names no cap gets. */
export const DEFAULT_MAX_TOKENS = 8192;

type Block = Record<string, unknown>;
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/**
 * The Messages body for a canonical request. Same-format requests forward the client's body with
 * the model renamed (keeping cache_control, betas' fields and anything else we do not model).
 */
export function encodeAnthropicRequest(request: CanonicalRequest, upstreamModel: string, stream: boolean): Record<string, unknown> {
  if (request.passthrough?.format === 'messages') return { ...request.passthrough.body, model: upstreamModel, stream };
  const maxTokens = request.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  const body: Record<string, unknown> = { model: upstreamModel, max_tokens: maxTokens, messages: encodeMessages(request.messages) };
  const system = request.system.filter((part) => part.text).map((part) => ({ type: 'text', text: part.text }));
  // Anthropic has no structured-output switch here; the schema becomes an instruction.
  if (request.outputSchema) system.push({ type: 'text', text: `Answer with only a JSON value that matches this JSON schema:\n${JSON.stringify(request.outputSchema.schema)}` });
  if (system.length) body.system = system;
  if (request.tools.length) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      input_schema: { type: 'object', ...tool.parameters },
    }));
    const choice = encodeToolChoice(request.toolChoice, request.parallelToolCalls);
    if (choice) body.tool_choice = choice;
  }
  const budget = thinkingBudget(request, maxTokens);
  if (budget !== undefined) {
    // With thinking on, Anthropic accepts only the default sampling settings.
    body.thinking = { type: 'enabled', budget_tokens: budget };
  } else {
    if (request.temperature !== undefined) body.temperature = Math.min(1, request.temperature);
    if (request.topP !== undefined) body.top_p = request.topP;
  }
  if (request.stop?.length) body.stop_sequences = request.stop;
  if (request.metadata?.user_id) body.metadata = { user_id: request.metadata.user_id };
  if (stream) body.stream = true;
  return body;
}

/**
 * Canonical messages as strictly alternating user/assistant turns: tool results join the user turn
 * (first, as Anthropic requires), mid-conversation system text becomes a user-side note, and
 * blocks Anthropic refuses (empty text, unsigned reasoning) are left out.
 */
function encodeMessages(messages: Message[]): AnthropicMessage[] {
  const encoded: AnthropicMessage[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = message.content.flatMap((part) => encodePart(part, message.role === 'system'));
    if (!blocks.length) continue;
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
  }
  return encoded;
}

function encodePart(part: Part, fromSystem: boolean): Block[] {
  switch (part.type) {
    case 'text':
      if (!part.text) return [];
      return [{ type: 'text', text: fromSystem ? `<system-reminder>\n${part.text}\n</system-reminder>` : part.text }];
    case 'image':
      return [{ type: 'image', source: imageSource(part.url) }];
    case 'tool-call':
      return [{ type: 'tool_use', id: part.id, name: part.name, input: parseInput(part.arguments) }];
    case 'tool-result':
      return [
        {
          type: 'tool_result',
          tool_use_id: part.callId,
          content: part.content.flatMap((inner) => encodePart(inner, false)),
          ...(part.isError ? { is_error: true } : {}),
        },
      ];
    case 'reasoning':
      if (part.origin === 'openai') return []; // another upstream's sealed reasoning means nothing here
      if (part.redactedData) return [{ type: 'redacted_thinking', data: part.redactedData }];
      if (part.signature) return [{ type: 'thinking', thinking: part.text, signature: part.signature }];
      return [];
  }
}

function imageSource(url: string): Block {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return data ? { type: 'base64', media_type: data[1], data: data[2] } : { type: 'url', url };
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

function encodeToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): Block | undefined {
  const disable = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallel === false ? { type: 'auto', ...disable } : undefined;
  if (choice === 'auto') return { type: 'auto', ...disable };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...disable };
  return { type: 'tool', name: choice.name, ...disable };
}

