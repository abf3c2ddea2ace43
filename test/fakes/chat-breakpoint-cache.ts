import { anthropicPrompt, type AnthropicPrompt } from './anthropic-prompt-cache.js';

/**
 * A Chat Completions body as a provider that serves Anthropic's models behind the Chat format
 * caches it (OpenRouter: https://openrouter.ai/docs/features/prompt-caching): nothing without a
 * `cache_control` on a content part, and by Anthropic's rules where there is one (at most four,
 * 1h before 5m, a 20-block lookback). The body is read as the Messages request it becomes: system
 * messages before the conversation are the system blocks, later ones stay in place, tool messages
 * are tool_result blocks in the user turn, assistant tool calls tool_use blocks, and a breakpoint
 * stays on the block it marked.
 */
export function chatBreakpointPrompt(body: Record<string, any>): AnthropicPrompt {
  const system: unknown[] = [];
  const messages: Array<{ role: string; content: unknown[] }> = [];
  const blocks = (content: unknown): any[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : []);
  const add = (role: 'user' | 'assistant', content: unknown[]): void => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...content);
    else messages.push({ role, content: [...content] });
  };
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    const systemRole = message?.role === 'system' || message?.role === 'developer';
    if (systemRole && messages.length === 0) {
      system.push(...blocks(message.content));
    } else if (systemRole) {
      // Later system text stays where it was, as Anthropic's API takes it inside `messages`.
      messages.push({ role: 'system', content: blocks(message.content) });
    } else if (message?.role === 'tool') {
      const parts = blocks(message.content);
      const marker = parts.findLast((part) => part?.cache_control !== undefined)?.cache_control;
      const content = parts.map(({ cache_control: _marker, ...rest }) => rest);
      add('user', [{ type: 'tool_result', tool_use_id: message.tool_call_id, content, ...(marker !== undefined ? { cache_control: marker } : {}) }]);
    } else if (message?.role === 'assistant') {
      const calls = (Array.isArray(message.tool_calls) ? message.tool_calls : []).map((call: any) => ({ type: 'tool_use', id: call.id, name: call.function?.name, input: call.function?.arguments }));
      add('assistant', [...blocks(message.content), ...calls]);
    } else {
      add('user', blocks(message?.content));
    }
  }
  return anthropicPrompt({ tools: body.tools, system, messages, tool_choice: body.tool_choice, thinking: body.reasoning ?? body.reasoning_effort });
}
