import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { TestRouter } from '../../helpers/router.js';
import { SKU } from '../support.js';
import { PDF_BASE64, PNG_BASE64, PRIOR_CALL, resultText, systemBlocks, toolsOf, type ClientFormat, type FollowUp, type SessionPlan, type UserInput } from './plan.js';

/**
 * Agent clients as they build a session: the official SDK sends each turn (streaming helpers for
 * streamed turns), the answer is replayed as the client received it, and new items are appended.
 * Nothing sent before is ever changed, except where the real client changes it itself (Claude
 * Code moves its last cache_control breakpoint to the newest block, turning a string content into
 * a one-block list to carry it).
 */
export interface ClientSession {
  /** Sends the conversation so far; appends the answer; returns the calls it made. */
  send(stream: boolean): Promise<Call[]>;
  /** Appends what the client sends after an answer: results for its calls, a hook's note, new user input. */
  followUp(calls: Call[], next: FollowUp): void;
}

export interface Call {
  id: string;
  name: string;
}

const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const PNG_URL = `data:image/png;base64,${PNG_BASE64}`;
const fileData = (file: 'pdf' | 'text') => (file === 'pdf' ? `data:application/pdf;base64,${PDF_BASE64}` : `data:text/plain;base64,${Buffer.from('notes: keep it short').toString('base64')}`);
const fileName = (file: 'pdf' | 'text') => (file === 'pdf' ? 'spec.pdf' : 'notes.txt');

export function clientSession(format: ClientFormat, router: TestRouter, plan: SessionPlan): ClientSession {
  switch (format) {
    case 'chat':
      return chatSession(router, plan);
    case 'responses':
      return responsesSession(router, plan);
    case 'messages':
      return messagesSession(router, plan);
  }
}

function chatSession(router: TestRouter, plan: SessionPlan): ClientSession {
  const client = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
  const user = (input: UserInput): any => {
    if (!input.image && !input.file) return { role: 'user', content: input.text };
    return {
      role: 'user',
      content: [
        { type: 'text', text: input.text },
        ...(input.image ? [{ type: 'image_url', image_url: { url: PNG_URL } }] : []),
        ...(input.file ? [{ type: 'file', file: { filename: fileName(input.file), file_data: fileData(input.file) } }] : []),
      ],
    };
  };
  const messages: any[] = systemBlocks(plan).map((content) => ({ role: 'system', content }));
  messages.push(user(plan.firstUser));
  if (plan.environment) messages.push({ role: 'system', content: plan.environment });
  if (plan.resumed) {
    messages.push(
      { role: 'assistant', content: null, tool_calls: [{ id: PRIOR_CALL.id, type: 'function', function: { name: PRIOR_CALL.name, arguments: PRIOR_CALL.arguments } }] },
      { role: 'tool', tool_call_id: PRIOR_CALL.id, content: PRIOR_CALL.result },
    );
  }
  const tools = toolsOf(plan).map((tool) => ({ type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
  return {
    async send(stream) {
      const body: any = { model: SKU, messages: json(messages), tools, ...(plan.cacheKey ? { prompt_cache_key: plan.cacheKey } : {}) };
      const completion = stream ? await client.chat.completions.stream({ ...body, stream_options: { include_usage: true } }).finalChatCompletion() : await client.chat.completions.create(body);
      const message = completion.choices[0]!.message;
      const calls = (message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call] : []));
      messages.push({
        role: 'assistant',
        content: message.content ?? null,
        ...(calls.length ? { tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } })) } : {}),
      });
      return calls.map((call) => ({ id: call.id, name: call.function.name }));
    },
    followUp(calls, next) {
      calls.forEach((call, index) => {
        const text = resultText(call, index);
        messages.push({ role: 'tool', tool_call_id: call.id, content: next.resultImages[index] ? [{ type: 'text', text }, { type: 'image_url', image_url: { url: PNG_URL } }] : text });
      });
      if (next.hookNote) messages.push({ role: 'system', content: next.hookNote });
      if (next.user) messages.push(user(next.user));
    },
  };
}

function responsesSession(router: TestRouter, plan: SessionPlan): ClientSession {
  const client = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
  const user = (input: UserInput): any => ({
    type: 'message',
    role: 'user',
    content: [
      { type: 'input_text', text: input.text },
      ...(input.image ? [{ type: 'input_image', image_url: PNG_URL, detail: 'auto' }] : []),
      ...(input.file ? [{ type: 'input_file', filename: fileName(input.file), file_data: fileData(input.file) }] : []),
    ],
  });
  const developer = (text: string) => ({ type: 'message', role: 'developer', content: [{ type: 'input_text', text }] });
  // As Codex: the base instructions, then its own developer items ahead of the conversation.
  const input: any[] = systemBlocks(plan).slice(1).map(developer);
  input.push(user(plan.firstUser));
  if (plan.environment) input.push(developer(plan.environment));
  if (plan.resumed) {
    input.push(
      { type: 'function_call', call_id: PRIOR_CALL.id, name: PRIOR_CALL.name, arguments: PRIOR_CALL.arguments },
      { type: 'function_call_output', call_id: PRIOR_CALL.id, output: PRIOR_CALL.result },
    );
  }
  const tools = toolsOf(plan).map((tool) => ({ type: 'function' as const, name: tool.name, description: tool.description, parameters: tool.parameters, strict: false }));
  return {
    async send(stream) {
      const body: any = {
        model: SKU,
        instructions: systemBlocks(plan)[0],
        input: json(input),
        tools,
        tool_choice: 'auto',
        parallel_tool_calls: true,
        reasoning: { effort: 'medium', summary: 'auto' },
        store: false,
        include: plan.includeEncrypted ? ['reasoning.encrypted_content'] : [],
        ...(plan.cacheKey ? { prompt_cache_key: plan.cacheKey } : {}),
      };
      const response = stream ? await client.responses.stream(body).finalResponse() : await client.responses.create(body);
      // Codex keeps each output item as it came and sends it back on the next turn.
      const output = json(response.output) as any[];
      input.push(...output);
      return output.filter((item) => item.type === 'function_call').map((item) => ({ id: item.call_id as string, name: item.name as string }));
    },
    followUp(calls, next) {
      calls.forEach((call, index) => {
        const text = resultText(call, index);
        input.push({ type: 'function_call_output', call_id: call.id, output: next.resultImages[index] ? [{ type: 'input_text', text }, { type: 'input_image', image_url: PNG_URL }] : text });
      });
      if (next.hookNote) input.push(developer(next.hookNote));
      if (next.user) input.push(user(next.user));
    },
  };
}

function messagesSession(router: TestRouter, plan: SessionPlan): ClientSession {
  const client = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
  const marker = { type: 'ephemeral' } as const;
  const blocks = (input: UserInput): any[] => [
    { type: 'text', text: input.text },
    ...(input.image ? [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }] : []),
    ...(input.file === 'pdf' ? [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF_BASE64 }, title: 'spec.pdf' }] : []),
    ...(input.file === 'text' ? [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes: keep it short' }, title: 'notes.txt' }] : []),
  ];
  // Claude Code marks the last system block and the newest block of the conversation.
  const system = systemBlocks(plan).map((text, index, all) => ({ type: 'text', text, ...(index === all.length - 1 ? { cache_control: marker } : {}) }));
  const messages: any[] = [{ role: 'user', content: blocks(plan.firstUser) }];
  // Claude Code sends its environment (and hooks' output) as system messages inside `messages`.
  if (plan.environment) messages.push({ role: 'system', content: plan.environment });
  if (plan.resumed) {
    messages.push(
      { role: 'assistant', content: [{ type: 'tool_use', id: PRIOR_CALL.id, name: PRIOR_CALL.name, input: JSON.parse(PRIOR_CALL.arguments) }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: PRIOR_CALL.id, content: PRIOR_CALL.result }] },
    );
  }
  const tools = toolsOf(plan).map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }));
  const withNewestMarked = (): any[] => {
    const sent = json(messages);
    const last = sent.at(-1);
    if (typeof last.content === 'string') last.content = [{ type: 'text', text: last.content, cache_control: marker }];
    else last.content.at(-1).cache_control = marker;
    return sent;
  };
  return {
    async send(stream) {
      const body: any = { model: SKU, max_tokens: 8192, system, tools, messages: withNewestMarked(), thinking: { type: 'enabled', budget_tokens: 2048 } };
      const message = stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
      const content = json(message.content) as any[];
      messages.push({ role: 'assistant', content });
      return content.filter((block) => block.type === 'tool_use').map((block) => ({ id: block.id as string, name: block.name as string }));
    },
    followUp(calls, next) {
      if (calls.length) {
        messages.push({
          role: 'user',
          content: calls.map((call, index) => {
            const text = resultText(call, index);
            return {
              type: 'tool_result',
              tool_use_id: call.id,
              content: next.resultImages[index] ? [{ type: 'text', text }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }] : text,
            };
          }),
        });
      }
      if (next.hookNote) messages.push({ role: 'system', content: next.hookNote });
      if (next.user) messages.push({ role: 'user', content: blocks(next.user) });
    },
  };
}
