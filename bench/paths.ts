import { MODELS } from './router-home.js';
import type { UpstreamFormat } from './upstream-replies.js';

export type ClientFormat = 'chat' | 'messages' | 'responses';

export interface PathSpec {
  /** e.g. chat->openai-chat */
  name: string;
  client: ClientFormat;
  upstream: UpstreamFormat;
  /** Client and backend speak the same format (the router forwards the body, model renamed). */
  sameFormat: boolean;
}

/** One HTTP request the load generators replay. */
export interface RequestSpec {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

const CLIENTS: ClientFormat[] = ['chat', 'messages', 'responses'];
const UPSTREAMS: UpstreamFormat[] = ['openai-chat', 'anthropic'];
const NATIVE: Record<UpstreamFormat, ClientFormat> = { 'openai-chat': 'chat', anthropic: 'messages', 'openai-responses': 'responses' };

const path = (client: ClientFormat, upstream: UpstreamFormat): PathSpec => ({ name: `${client}->${upstream}`, client, upstream, sameFormat: NATIVE[upstream] === client });

/**
 * Every client format to the openai-chat and anthropic backends, plus Responses forwarded to a
 * Responses backend, so each of the three same-format paths is measured (the other clients to a
 * Responses backend would only add translated paths, which the first six already cover).
 */
export const PATHS: PathSpec[] = [...CLIENTS.flatMap((client) => UPSTREAMS.map((upstream) => path(client, upstream))), path('responses', 'openai-responses')];

export const ANTHROPIC_VERSION = '2023-06-01';
const PROMPT = 'Say hello in twenty words.';
const MAX_TOKENS = 64;

const ENDPOINT: Record<ClientFormat, string> = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' };

function body(format: ClientFormat, model: string, stream: boolean): string {
  const streaming = stream ? { stream: true } : {};
  switch (format) {
    case 'chat':
      return JSON.stringify({
        model,
        messages: [{ role: 'user', content: PROMPT }],
        max_tokens: MAX_TOKENS,
        ...streaming,
        ...(stream ? { stream_options: { include_usage: true } } : {}),
      });
    case 'messages':
      return JSON.stringify({ model, max_tokens: MAX_TOKENS, messages: [{ role: 'user', content: PROMPT }], ...streaming });
    case 'responses':
      return JSON.stringify({ model, input: PROMPT, max_output_tokens: MAX_TOKENS, ...streaming });
  }
}

function headers(format: ClientFormat, key: string): Record<string, string> {
  const json = { 'content-type': 'application/json' };
  if (format === 'messages') return { ...json, 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION };
  return { ...json, authorization: `Bearer ${key}` };
}

/** What a client sends the router for this path. */
export function routerRequest(origin: string, spec: PathSpec, stream: boolean, key: string): RequestSpec {
  return { origin, path: ENDPOINT[spec.client], headers: headers(spec.client, key), body: body(spec.client, MODELS[spec.upstream], stream) };
}

/** The same exchange in the upstream's own format, for the upstream directly or the bare proxy in front of it. */
export function upstreamRequest(origin: string, upstream: UpstreamFormat, stream: boolean): RequestSpec {
  const format = NATIVE[upstream];
  return { origin, path: ENDPOINT[format], headers: headers(format, 'sk-bench-upstream'), body: body(format, 'm', stream) };
}

/** The slow-stream request used by the 1000-stream test. */
export function slowStreamRequest(origin: string, key: string): RequestSpec {
  return { origin, path: ENDPOINT.chat, headers: headers('chat', key), body: body('chat', MODELS.slow, true) };
}
