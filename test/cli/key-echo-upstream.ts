import type { IncomingMessage } from 'node:http';
import { asksForStream, chatCompletionBody, closingFrames, openingFrames, startEventStream, startFaultUpstream, type FaultUpstream, type UpstreamCall, type UpstreamKind } from '../reliability/support.js';

/**
 * An upstream of each kind that is careless with secrets, as real ones can be: a reply repeats the
 * request (prompt included, as a model may), and an error quotes the key the router sent and any
 * gateway header, in a status error or in the middle of a stream.
 *
 * The request decides: a body holding `FAIL-STATUS` gets a 400, one holding `FAIL-STREAM` a stream
 * that breaks after its first frames; anything else a well-formed reply.
 */

/** What the router sent as credentials: the bearer, x-api-key or x-goog-api-key value, and the gateway header. */
function presentedCredentials(req: IncomingMessage): string {
  const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  const key = bearer || String(req.headers['x-api-key'] ?? req.headers['x-goog-api-key'] ?? '');
  return `Incorrect API key provided: ${key}; gateway key ${String(req.headers['x-gateway-key'] ?? 'none')}`;
}

function json(call: UpstreamCall, status: number, payload: unknown): void {
  const raw = JSON.stringify(payload);
  call.res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(raw)) });
  call.res.end(raw);
}

function reply(kind: UpstreamKind, text: string): unknown {
  const usage = { input_tokens: 11, output_tokens: 5 };
  switch (kind) {
    case 'openai-chat':
      return chatCompletionBody(text);
    case 'anthropic':
      return { id: 'msg_echo', type: 'message', role: 'assistant', model: 'upstream-model', content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage };
    case 'openai-responses':
      return {
        id: 'resp_echo',
        object: 'response',
        created_at: 1_700_000_000,
        status: 'completed',
        model: 'upstream-model',
        output: [{ id: 'msg_echo', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
        usage: { ...usage, total_tokens: 16 },
      };
    case 'gemini':
      return {
        candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 5, totalTokenCount: 16 },
        modelVersion: 'upstream-model',
      };
  }
}

function errorBody(kind: UpstreamKind, message: string): unknown {
  if (kind === 'anthropic') return { type: 'error', error: { type: 'authentication_error', message } };
  if (kind === 'gemini') return { error: { code: 400, message, status: 'INVALID_ARGUMENT' } };
  return { error: { message, type: 'invalid_request_error', param: message, code: 'invalid_api_key' } };
}

function errorFrame(kind: UpstreamKind, message: string): string {
  if (kind === 'openai-chat') return `data: ${JSON.stringify({ error: { message, type: 'server_error', code: message } })}\n\n`;
  if (kind === 'anthropic') return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message } })}\n\n`;
  if (kind === 'gemini') return `data: ${JSON.stringify({ error: { code: 500, message, status: 'INTERNAL' } })}\n\n`;
  return `event: response.failed\ndata: ${JSON.stringify({ type: 'response.failed', response: { id: 'resp_echo', status: 'failed', error: { code: 'server_error', message } } })}\n\n`;
}

export function answerCarelessly(kind: UpstreamKind, call: UpstreamCall): void {
  const said = JSON.stringify(call.body);
  if (said.includes('FAIL-STATUS')) return json(call, 400, errorBody(kind, presentedCredentials(call.req)));
  const text = `You said: ${said.slice(0, 2_000)}`;
  if (asksForStream(call)) {
    startEventStream(call.res);
    if (said.includes('FAIL-STREAM')) return void call.res.end(openingFrames(kind, text) + errorFrame(kind, presentedCredentials(call.req)));
    return void call.res.end(openingFrames(kind, text) + closingFrames(kind));
  }
  json(call, 200, reply(kind, text));
}

/** One upstream serving every kind, each under its own upstream model name `echo-<kind>`. */
export async function startKeyEchoUpstream(kinds: readonly UpstreamKind[]): Promise<FaultUpstream> {
  const upstream = await startFaultUpstream();
  for (const kind of kinds) upstream.serve(`echo-${kind}`, (call) => answerCarelessly(kind, call));
  return upstream;
}
