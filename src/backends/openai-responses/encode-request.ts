import type { CanonicalRequest, Message, TextPart } from '../../core/request.js';

type Item = Record<string, unknown>;

/** The Responses body for a canonical request; same-format requests forward the client's body. */
export function encodeResponsesRequest(request: CanonicalRequest, upstreamModel: string, stream: boolean): Record<string, unknown> {
  if (request.passthrough?.format === 'responses') return { ...request.passthrough.body, model: upstreamModel, stream };
  const body: Record<string, unknown> = {
    model: upstreamModel,
    input: request.messages.flatMap(encodeMessage),
    store: false,
    include: ['reasoning.encrypted_content'],
    stream,
  };
  const instructions = request.system.map((part) => part.text).join('\n\n');
  if (instructions) body.instructions = instructions;
  if (request.tools.length) {
    body.tools = request.tools.map((tool) => ({ type: 'function', name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters }));
    if (request.toolChoice) body.tool_choice = typeof request.toolChoice === 'string' ? request.toolChoice : { type: 'function', name: request.toolChoice.name };
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.reasoningEffort) body.reasoning = { effort: request.reasoningEffort };
  if (request.outputSchema) {
    const { name, schema, strict } = request.outputSchema;
    body.text = { format: { type: 'json_schema', name, schema, ...(strict !== undefined ? { strict } : {}) } };
  }
  return body;
}

function encodeMessage(message: Message): Item[] {
  const items: Item[] = [];
  const texts = message.content.filter((part): part is TextPart => part.type === 'text');
  switch (message.role) {
    case 'system':
      items.push({ role: 'developer', content: texts.map((part) => part.text).join('\n\n') });
      break;
    case 'user': {
      const content = message.content.flatMap((part): Item[] =>
        part.type === 'text' ? [{ type: 'input_text', text: part.text }] : part.type === 'image' ? [{ type: 'input_image', image_url: part.url }] : [],
      );
      if (content.length) items.push({ role: 'user', content });
      break;
    }
    case 'assistant':
      for (const part of message.content) {
        // Only OpenAI's own encrypted reasoning can be replayed to it.
        if (part.type === 'reasoning' && part.origin === 'openai' && part.redactedData) {
          items.push({ type: 'reasoning', summary: [], encrypted_content: part.redactedData });
        }
      }
      if (texts.length) items.push({ role: 'assistant', content: texts.map((part) => ({ type: 'output_text', text: part.text })) });
      for (const part of message.content) {
        if (part.type === 'tool-call') items.push({ type: 'function_call', call_id: part.id, name: part.name, arguments: part.arguments });
      }
      break;
    case 'tool':
      for (const part of message.content) {
        if (part.type === 'tool-result') {
          const output = part.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join('');
          items.push({ type: 'function_call_output', call_id: part.callId, output });
        }
      }
      break;
  }
  return items;
}
