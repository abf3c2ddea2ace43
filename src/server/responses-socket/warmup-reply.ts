/**
 * The answer to `response.create` with `generate: false`: the request is taken and a response id
 * given, nothing is generated and nothing is billed (developers.openai.com, "WebSocket mode": a
 * warm-up a later turn continues with previous_response_id). Two events, as a generating turn
 * opens and ends: response.created, then response.completed with no output and no usage.
 */
export function warmupEvents(id: string, body: Record<string, unknown>, now = Date.now()): string[] {
  const createdAt = Math.floor(now / 1000);
  const response = (status: 'in_progress' | 'completed') => ({
    id,
    object: 'response',
    created_at: createdAt,
    completed_at: status === 'completed' ? createdAt : null,
    status,
    error: null,
    incomplete_details: null,
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    model: body.model,
    output: [],
    previous_response_id: null,
    store: false,
    usage: status === 'completed' ? { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 } : null,
    metadata: body.metadata ?? {},
  });
  return [
    JSON.stringify({ type: 'response.created', sequence_number: 0, response: response('in_progress') }),
    JSON.stringify({ type: 'response.completed', sequence_number: 1, response: response('completed') }),
  ];
}
