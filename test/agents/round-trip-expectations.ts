import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-server.js';
import { lastUserMessage, lastUserToolResultIds } from './shell-tool-script.js';

/** The tool call an agent was scripted to make. */
export interface ExpectedCall {
  id: string;
  name: string;
  input: object;
}

/** The agent really ran the command: marker.txt in its working directory holds the marker. */
export function expectMarkerWritten(cwd: string, marker: string, why: string): void {
  const file = path.join(cwd, 'marker.txt');
  expect(fs.existsSync(file), why).toBe(true);
  expect(fs.readFileSync(file, 'utf8').trim(), why).toBe(marker);
}

/**
 * On an Anthropic upstream: the request that carried the call's result back (its output says
 * "done"), asked for by an earlier request that had no result yet. Returned for further checks.
 */
export function expectAnthropicToolResult(main: RecordedRequest[], callId: string, why: string): RecordedRequest {
  const after = main.find((request) => lastUserToolResultIds(request.body.messages).includes(callId));
  expect(after, why).toBeDefined();
  expect(main.indexOf(after!), why).toBeGreaterThan(0);
  const result = lastUserMessage(after!.body.messages)!.content.find((block: any) => block.type === 'tool_result');
  expect(result, why).toMatchObject({ type: 'tool_result', tool_use_id: callId });
  expect(JSON.stringify(result.content), why).toContain('done');
  return after!;
}

/** The assistant turn sent back with the result holds its thinking block, signature intact, then the call. */
export function expectSignedThinkingReplayed(after: RecordedRequest, reasoning: { thinking: string; signature: string }, call: ExpectedCall, why: string): void {
  const assistant = after.body.messages.findLast((message: any) => message.role === 'assistant');
  const blocks: any[] = Array.isArray(assistant?.content) ? assistant.content : [];
  expect(blocks.map((block) => block.type), why).toEqual(['thinking', 'tool_use']);
  expect(blocks[0], why).toMatchObject({ type: 'thinking', ...reasoning });
  expect(blocks[1], why).toMatchObject({ type: 'tool_use', ...call });
}

/**
 * On an OpenAI Chat upstream: a later request carries the assistant's call and, right after it,
 * the tool message with the call's output.
 */
export function expectChatToolResult(main: RecordedRequest[], call: ExpectedCall, why: string): void {
  const after = main.find((request) => request.body.messages.some((message: any) => message.role === 'tool'));
  expect(after, why).toBeDefined();
  expect(main.indexOf(after!), why).toBeGreaterThan(0);
  const messages: any[] = after!.body.messages;
  const assistant = messages.findLast((message) => message.role === 'assistant' && message.tool_calls?.length);
  expect(assistant?.tool_calls, why).toMatchObject([{ id: call.id, type: 'function', function: { name: call.name } }]);
  expect(JSON.parse(assistant.tool_calls[0].function.arguments), why).toMatchObject(call.input);
  const result = messages.find((message) => message.role === 'tool');
  expect(result, why).toMatchObject({ role: 'tool', tool_call_id: call.id });
  expect(JSON.stringify(result.content), why).toContain('done');
  expect(messages.indexOf(result), why).toBe(messages.indexOf(assistant) + 1);
}
