import type { ServerResponse } from 'node:http';
import { isObject, openEventStream, sendJson, startFakeServer, type FakeUpstream, type RecordedRequest } from '../fake-server.js';

/**
 * A Chat Completions server that behaves as one provider's documentation says (a ProviderRules
 * from this folder): it refuses what that provider refuses, with its status and error body, and
 * answers with reasoning in that provider's fields. Each request is answered by what it holds: a
 * conversation that ends in a tool result gets a text answer naming it, any other a call to the
 * first tool offered (or text, with no tools). Reasoning is numbered by request, so a test can tell
 * which reply's reasoning came back.
 */
export interface ProviderRules {
  name: string;
  /** A refusal for this body: the status and the provider's error body; undefined to answer. */
  refuse(body: Record<string, any>, produced: ProducedReasoning[]): { status: number; body: unknown } | undefined;
  /** The reasoning fields of a reply message (non-streamed) for request number `n`. */
  reasoning(n: number): Record<string, unknown>;
  /** The same reasoning as stream deltas, in order. */
  reasoningDeltas(n: number): Array<Record<string, unknown>>;
}

/** What the fake answered with: its reasoning fields and tool calls, for rules that require them back. */
export interface ProducedReasoning {
  n: number;
  fields: Record<string, unknown>;
  toolCallId?: string;
}

export interface ChatProviderUpstream extends FakeUpstream {
  /** Bodies the fake answered (refused ones are in `requests` only). */
  answered: Array<Record<string, any>>;
  produced: ProducedReasoning[];
}

export async function startChatProvider(rules: ProviderRules): Promise<ChatProviderUpstream> {
  const produced: ProducedReasoning[] = [];
  const answered: Array<Record<string, any>> = [];
  let count = 0;
  const { origin, requests, close } = await startFakeServer(async (request: RecordedRequest, res: ServerResponse) => {
    const body = request.body;
    if (request.method !== 'POST' || !request.path.endsWith('/chat/completions') || !isObject(body)) return sendJson(res, 404, { error: { message: 'not found' } });
    const refusal = rules.refuse(body, produced);
    if (refusal) return sendJson(res, refusal.status, refusal.body);
    answered.push(body);
    const n = ++count;
    const messages = body.messages as Array<Record<string, any>>;
    const last = messages.at(-1);
    const tool = Array.isArray(body.tools) && body.tools.length ? (body.tools[0].function.name as string) : undefined;
    const call = last?.role !== 'tool' && tool ? { id: `call_${rules.name}_${n}`, name: tool, arguments: '{"city":"Paris"}' } : undefined;
    // A tool message's content is a string or a list of text parts (OpenRouter with cache_control).
    const said = (content: unknown): string => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: any) => part.text).join('') : '');
    const text = call ? null : `done: ${last?.role === 'tool' ? said(last.content) : 'no tool'}`;
    produced.push({ n, fields: rules.reasoning(n), ...(call ? { toolCallId: call.id } : {}) });
    const usage = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 };
    const finish = call ? 'tool_calls' : 'stop';
    const head = { id: `chatcmpl-${rules.name}-${n}`, object: 'chat.completion', created: 1_700_000_000, model: body.model };
    if (body.stream !== true) {
      const message = { role: 'assistant', content: text, ...rules.reasoning(n), ...(call ? { tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }] } : {}) };
      return sendJson(res, 200, { ...head, choices: [{ index: 0, message, finish_reason: finish }], usage });
    }
    const stream = openEventStream(res, {}, {});
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}) =>
      stream.frame(`data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`);
    await chunk({ role: 'assistant', content: '' });
    for (const delta of rules.reasoningDeltas(n)) await chunk(delta);
    if (call) {
      await chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
      await chunk({ tool_calls: [{ index: 0, function: { arguments: call.arguments } }] });
    } else {
      await chunk({ content: text!.slice(0, 3) });
      await chunk({ content: text!.slice(3) });
    }
    await chunk({}, finish);
    if (body.stream_options?.include_usage || rules.name === 'mistral') await stream.frame(`data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
    await stream.frame('data: [DONE]\n\n');
    stream.end();
  });
  return { url: `${origin}/v1`, requests, answered, produced, close };
}

/** OpenAI's error body, which these providers answer in. */
export const openAIError = (status: number, message: string, param: string | null = null) => ({
  status,
  body: { error: { message, type: 'invalid_request_error', param, code: null } },
});

/** Each assistant message of a body that called tools, with the id of its first call. */
export function toolCallingAssistants(body: Record<string, any>): Array<{ index: number; message: Record<string, any>; callId: string }> {
  const messages = (body.messages ?? []) as Array<Record<string, any>>;
  return messages.flatMap((message, index) =>
    message?.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length ? [{ index, message, callId: String(message.tool_calls[0].id) }] : [],
  );
}
