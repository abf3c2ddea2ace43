import { part, type PromptPart } from './prompt-cache.js';

/**
 * The prompt of an OpenAI or Gemini request as ordered parts, in the order the prefix is matched.
 * (Anthropic's, which also carries breakpoints, is in anthropic-prompt-cache.ts.)
 */

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * OpenAI's guide: "the entire request prefix is cacheable": tool definitions, then the messages in
 * order; a structured-output schema is a prefix to the system message, so it sits between them.
 */
export function openAIChatParts(body: Record<string, any>): PromptPart[] {
  const parts = list(body.tools).map((tool, i) => part('tool', `tools[${i}]`, tool));
  if (body.response_format?.type === 'json_schema') parts.push(part('schema', 'response_format', body.response_format));
  list(body.messages).forEach((message: any, i) => {
    const system = message?.role === 'system' || message?.role === 'developer';
    parts.push(part(system ? 'system' : 'message', `messages[${i}]`, withoutPartMarkers(message)));
  });
  return parts;
}

/**
 * Providers that take Anthropic-style `cache_control` on content parts (OpenRouter, for its
 * Anthropic and Gemini models: https://openrouter.ai/docs/features/prompt-caching) read it as a
 * breakpoint, not as prompt text, so a marker that moves to a newer part leaves the prefix as it was.
 */
function withoutPartMarkers(message: any): unknown {
  if (!Array.isArray(message?.content) || !message.content.some((item: any) => item && typeof item === 'object' && 'cache_control' in item)) return message;
  return { ...message, content: message.content.map((item: any) => (item && typeof item === 'object' && 'cache_control' in item ? (({ cache_control: _marker, ...rest }) => rest)(item) : item)) };
}

/**
 * Responses: tools, the text format's schema, `instructions` (a system message at the top of the
 * context), then each input item. A `previous_response_id` stands for context this fake does not
 * keep, so only what the request itself carries is counted.
 */
export function openAIResponsesParts(body: Record<string, any>): PromptPart[] {
  const parts = list(body.tools).map((tool, i) => part('tool', `tools[${i}]`, tool));
  if (body.text?.format?.type === 'json_schema') parts.push(part('schema', 'text.format', body.text.format));
  if (typeof body.instructions === 'string') parts.push(part('system', 'instructions', body.instructions));
  list(body.instructions).forEach((item, i) => parts.push(part('system', `instructions[${i}]`, item)));
  if (typeof body.input === 'string') parts.push(part('message', 'input', body.input));
  list(body.input).forEach((item: any, i) => {
    const system = item?.role === 'system' || item?.role === 'developer';
    parts.push(part(system ? 'system' : 'message', `input[${i}]`, item));
  });
  return parts;
}

/**
 * Gemini does not document the order its implicit cache matches in; this fake takes the one the
 * other providers use: tools (and their config), the system instruction, then each content.
 */
export function geminiParts(body: Record<string, any>): PromptPart[] {
  const parts = list(body.tools).map((tool, i) => part('tool', `tools[${i}]`, tool));
  if (body.toolConfig !== undefined) parts.push(part('settings', 'toolConfig', body.toolConfig));
  if (body.systemInstruction !== undefined) parts.push(part('system', 'systemInstruction', body.systemInstruction));
  list(body.contents).forEach((content, i) => parts.push(part('message', `contents[${i}]`, content)));
  return parts;
}
