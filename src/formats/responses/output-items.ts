import { newId } from '../shared/ids.js';

/** Output items in their completed form; each carries the id and status a client replays. */
export const messageItem = (text: string, id = newId('msg_'), status = 'completed') => ({
  id,
  type: 'message' as const,
  status,
  role: 'assistant' as const,
  content: [{ type: 'output_text' as const, text, annotations: [] as unknown[], logprobs: [] as unknown[] }],
});

export const functionCallItem = (callId: string, name: string, args: string, id = newId('fc_'), status = 'completed') => ({
  id,
  type: 'function_call' as const,
  status,
  call_id: callId,
  name,
  arguments: args,
});

export const reasoningItem = (text: string, id = newId('rs_'), status = 'completed') => ({
  id,
  type: 'reasoning' as const,
  status,
  summary: text ? [{ type: 'summary_text' as const, text }] : [],
});
