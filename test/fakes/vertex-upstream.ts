import type { ServerResponse } from 'node:http';
import { isObject, sendJson, startFakeServer, type FakeUpstream } from './fake-server.js';

/**
 * A fake of Vertex AI's model methods for one project and region, built from its references:
 * Claude's `rawPredict` / `streamRawPredict` under publishers/anthropic
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude) and
 * Gemini's `generateContent` / `streamGenerateContent` under publishers/google
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference). It checks the
 * bearer token against those the fake Google token sources issued, and what Vertex checks of a
 * Claude body (its `anthropic_version`, no `model`), then has the Anthropic or Gemini fake answer
 * (their rendering, streams included), passing their answer through as it comes.
 */

export interface VertexUpstreamOptions {
  project: string;
  region: string;
  /** The tokens Vertex accepts now. */
  tokens: () => readonly string[];
  /** The fakes that answer for each publisher (origins). */
  anthropic: { url: string; apiKey: string };
  gemini: { url: string; apiKey: string };
  /** When set, a refusal quotes the token it was given, as a careless proxy might (to prove the router hides it). */
  quoteRefusedToken?: boolean;
}

const METHOD = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(anthropic|google)\/models\/([^/:]+):(rawPredict|streamRawPredict|generateContent|streamGenerateContent)$/;

const googleError = (res: ServerResponse, code: number, status: string, message: string) => sendJson(res, code, { error: { code, message, status } });

export async function startVertexUpstream(options: VertexUpstreamOptions): Promise<FakeUpstream> {
  const server = await startFakeServer(async (request, res) => {
    const url = new URL(request.path, 'http://fake');
    const method = METHOD.exec(url.pathname);
    if (request.method !== 'POST' || !method) return googleError(res, 404, 'NOT_FOUND', `The requested URL ${url.pathname} was not found on this server.`);
    const [, project, region, publisher, model, verb] = method as unknown as [string, string, string, string, string, string];
    const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    if (!token || !options.tokens().includes(token)) {
      const quoted = options.quoteRefusedToken && token ? ` (token ${token})` : '';
      return googleError(res, 401, 'UNAUTHENTICATED', `Request had invalid authentication credentials${quoted}. Expected OAuth 2 access token.`);
    }
    if (project !== options.project || region !== options.region) return googleError(res, 403, 'PERMISSION_DENIED', `Permission denied on resource project ${project} (or it may not exist).`);
    const body = request.body;
    if (!isObject(body)) return googleError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    const claude = publisher === 'anthropic';
    if (claude !== (verb === 'rawPredict' || verb === 'streamRawPredict')) return googleError(res, 400, 'INVALID_ARGUMENT', `${verb} is not served for publisher ${publisher}.`);
    if (claude) {
      if (body.anthropic_version !== 'vertex-2023-10-16') return sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic_version: Input should be vertex-2023-10-16' } });
      if (body.model !== undefined) return sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'model: Extra inputs are not permitted' } });
      if ((verb === 'streamRawPredict') !== (body.stream === true)) return sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'stream: streamRawPredict streams, rawPredict does not' } });
      const { anthropic_version: _version, ...rest } = body;
      return relay(res, `${new URL(options.anthropic.url).origin}/v1/messages`, { 'x-api-key': options.anthropic.apiKey, 'anthropic-version': '2023-06-01' }, { ...rest, model });
    }
    const query = verb === 'streamGenerateContent' ? `?${url.searchParams}` : '';
    return relay(res, `${new URL(options.gemini.url).origin}/v1beta/models/${model}:${verb}${query}`, { 'x-goog-api-key': options.gemini.apiKey }, body);
  });
  return { url: server.origin, requests: server.requests, close: server.close };
}

/** The publisher fake's answer, status, content type and body, passed on as it arrives. */
async function relay(res: ServerResponse, url: string, headers: Record<string, string>, body: unknown): Promise<void> {
  const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
  if (answer.body) for await (const chunk of answer.body) res.write(chunk);
  res.end();
}
