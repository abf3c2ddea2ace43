import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isObject, openEventStream, sendJson, startFakeServer, type FakeServerOptions, type FakeUpstream, type RecordedRequest } from './fake-server.js';
import { requestProblem } from './gemini-request-rules.js';
import { argumentsJson, randomId, scriptCursor, splitText, stopReason, usageFor, type Script, type ScriptedTurn } from './scripted-turn.js';
import { automaticCache, geminiRules } from './automatic-prompt-cache.js';
import { PromptCache, credentialOf, promptCacheOf, type PromptCacheOption, type PromptRecord } from './prompt-cache.js';
import { geminiParts } from './prompt-parts.js';
import { fakeSearch, lastUserText } from './web-search.js';

/**
 * A fake of Google's Gemini API (`generativelanguage.googleapis.com/v1beta`), built from its
 * reference: https://ai.google.dev/api/generate-content. It serves
 * `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent` (SSE with `alt=sse`,
 * a JSON array without) and `:countTokens`, checks the key in `x-goog-api-key`, and refuses what Gemini refuses
 * (gemini-request-rules.ts), thought signatures it never issued included.
 *
 * Answers follow Gemini 3: thought summaries (when scripted) as `thought: true` parts; the first
 * functionCall part carries a thoughtSignature; an answer without calls carries one on its last
 * part (when streamed, an empty text part in the final chunk). Every chunk carries cumulative
 * usageMetadata; the last has the finishReason; there is no `[DONE]`.
 */

export interface GeminiUpstreamOptions extends FakeServerOptions, PromptCacheOption {
  /** When set, `x-goog-api-key` must equal it; otherwise any non-empty key passes. */
  apiKey?: string;
  /** Give function calls Gemini's own `id` (newer API versions do), to be echoed on functionResponse. */
  callIds?: boolean;
  /** Served by GET /v1beta/models, as `models/{id}`. */
  models?: string[];
}

/** A scripted turn, plus what only Gemini reports. */
export interface GeminiTurn extends ScriptedTurn {
  /** Of the scripted output tokens, how many were thinking (`thoughtsTokenCount`). */
  thoughtsTokens?: number;
  /** Ends the answer with this finishReason instead of the scripted stop's. */
  finishReason?: string;
  /** Answers with no candidate, the prompt blocked for this reason. */
  blockReason?: string;
  /** Signs the thought summary too (on its last piece), as Gemini may. */
  signThoughts?: boolean;
}

export interface GeminiUpstream extends FakeUpstream {
  /** Every thoughtSignature this fake has issued, in order. */
  signatures: string[];
  /** Each completed request's prompt and what the implicit cache did with it (none unless `promptCache`). */
  prompts: PromptRecord[];
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function geminiErrorBody(status: number, message?: string) {
  return { error: { code: status, message: message ?? `Request failed with status ${status}`, status: STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT') } };
}

export async function startGeminiUpstream(script: Script, options: GeminiUpstreamOptions = {}): Promise<GeminiUpstream> {
  const nextTurn = scriptCursor(script);
  const cache = promptCacheOf(options.promptCache);
  const prompts: PromptRecord[] = [];
  const signatures: string[] = [];
  const issue = (): string => {
    const signature = randomBytes(48).toString('base64');
    signatures.push(signature);
    return signature;
  };

  const { origin, requests, close } = await startFakeServer(async (request, res) => {
    const url = new URL(request.path, 'http://fake');
    // The API's versions serve the same methods (https://ai.google.dev/gemini-api/docs/api-versions); `requests` records which was asked.
    if (request.method === 'GET' && /^\/v1(?:beta|alpha)?\/models$/.test(url.pathname)) {
      if (!authorised(request, res, options.apiKey)) return;
      return sendJson(res, 200, modelPage(options.models ?? ['gemini-2.5-flash', 'gemini-2.5-pro'], url.searchParams));
    }
    const method = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/.exec(url.pathname);
    if (request.method !== 'POST' || !method) return sendJson(res, 404, geminiErrorBody(404, `The requested URL ${url.pathname} was not found on this server.`));
    if (!authorised(request, res, options.apiKey)) return;
    const body = request.body;
    if (!isObject(body)) return sendJson(res, 400, geminiErrorBody(400, 'Invalid JSON payload received.'));
    // https://ai.google.dev/api/tokens#method:-models.counttokens: contents, or a whole generateContentRequest (with its model); about four characters a token here.
    if (method[2] === 'countTokens') {
      const whole = body.generateContentRequest;
      if (whole !== undefined && body.contents !== undefined) return sendJson(res, 400, geminiErrorBody(400, 'contents and generateContentRequest are mutually exclusive.'));
      if (whole !== undefined && !(isObject(whole) && typeof whole.model === 'string')) return sendJson(res, 400, geminiErrorBody(400, '* CountTokensRequest.generate_content_request.model: model is required'));
      const counted = whole ?? { contents: body.contents };
      const { model: _model, ...request } = counted as Record<string, unknown>;
      const problem = requestProblem(request, signatures);
      if (problem) return sendJson(res, 400, geminiErrorBody(400, problem));
      return sendJson(res, 200, { totalTokens: Math.ceil(JSON.stringify(request).length / 4) });
    }
    const problem = requestProblem(body, signatures);
    if (problem) return sendJson(res, 400, geminiErrorBody(400, problem));
    const turn = (await nextTurn(body)) as GeminiTurn;
    if (turn.status !== undefined && (turn.status < 200 || turn.status > 299)) return sendJson(res, turn.status, turn.errorBody ?? geminiErrorBody(turn.status), turn.headers);
    const model = decodeURIComponent(method[1]!);
    // Implicit caching, per key (the project) and model.
    const prompt = cache && automaticCache(cache, PromptCache.scope('gemini', credentialOf(request.headers), model), model, geminiParts(body), geminiRules(model));
    if (prompt) prompts.push(prompt);
    const chunks = answerChunks(turn, body, model, issue, prompt);
    if (method[2] === 'generateContent') return sendJson(res, 200, merge(chunks), turn.headers);
    if (url.searchParams.get('alt') !== 'sse') return sendJson(res, 200, chunks, turn.headers);
    const sse = openEventStream(res, turn.headers ?? {}, options);
    // Gemini ends each event with CRLF line ends.
    for (const chunk of chunks) await sse.frame(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    sse.end();
  });

  /** The answer as streamed chunks; a non-streamed reply is their parts joined (see merge). */
  function answerChunks(turn: GeminiTurn, body: Record<string, any>, model: string, issueSignature: () => string, prompt?: PromptRecord): any[] {
    const responseId = randomId('', 22);
    const { input, output, cached } = usageFor(turn, body, prompt);
    const thoughts = Math.min(turn.thoughtsTokens ?? 0, output);
    const usage = (done: number) => ({
      promptTokenCount: input,
      ...(done ? { candidatesTokenCount: done } : {}),
      totalTokenCount: input + done + thoughts,
      // Cache hits are within promptTokenCount, reported as cachedContentTokenCount on every chunk.
      ...(cached ? { cachedContentTokenCount: cached } : {}),
      ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: input }],
    });
    const chunk = (parts: any[] | undefined, done: number, finishReason?: string) => ({
      candidates: [{ ...(parts ? { content: { parts, role: 'model' } } : {}), ...(finishReason ? { finishReason } : {}), index: 0 }],
      usageMetadata: usage(done),
      modelVersion: model,
      responseId,
    });
    if (turn.blockReason) return [{ promptFeedback: { blockReason: turn.blockReason }, usageMetadata: usage(0), modelVersion: model, responseId }];

    const answerTokens = output - thoughts;
    const chunks: any[] = [];
    const thoughtPieces = splitText(turn.reasoning?.text ?? '', turn.chunkSize);
    thoughtPieces.forEach((piece, index) => {
      const signed = turn.signThoughts && index === thoughtPieces.length - 1 ? { thoughtSignature: issueSignature() } : {};
      chunks.push(chunk([{ text: piece, thought: true, ...signed }], 0));
    });
    const textPieces = splitText(turn.text ?? '', turn.chunkSize);
    // Usage grows with the answer; the final chunk has it all.
    textPieces.forEach((piece, index) => chunks.push(chunk([{ text: piece }], Math.max(1, Math.round((answerTokens * (index + 1)) / (textPieces.length + 1))))));
    const calls = turn.toolCalls ?? [];
    if (calls.length) {
      // Parallel calls come in one chunk; only the first carries the signature.
      const parts = calls.map((call, index) => ({
        functionCall: { name: call.name, args: JSON.parse(argumentsJson(call)) as unknown, ...(options.callIds ? { id: call.id ?? randomId('fc_', 12) } : {}) },
        ...(index === 0 ? { thoughtSignature: issueSignature() } : {}),
      }));
      chunks.push(chunk(parts, answerTokens));
    }
    const finishReason = turn.finishReason ?? { stop: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP' }[stopReason(turn)];
    // The last chunk: the finish, full usage and, for an answer without calls, its signature.
    const last = chunk([calls.length ? { text: '' } : { text: '', thoughtSignature: issueSignature() }], answerTokens, finishReason);
    // Google Search grounding, when scripted and offered, comes with the last chunk:
    // https://ai.google.dev/gemini-api/docs/google-search (segment offsets count UTF-8 bytes).
    const offered = (body.tools ?? []).some((tool: any) => tool.googleSearch !== undefined || tool.google_search !== undefined);
    if (turn.webSearch && offered) {
      const query = turn.webSearch.query ?? lastUserText(body.contents);
      const found = fakeSearch(query);
      const text = turn.text ?? '';
      (last.candidates[0] as any).groundingMetadata = {
        webSearchQueries: [query],
        searchEntryPoint: { renderedContent: '<div>search</div>' },
        groundingChunks: found.map((result) => ({ web: { uri: result.url, title: result.title } })),
        ...(text ? { groundingSupports: [{ segment: { startIndex: 0, endIndex: Buffer.byteLength(text), text }, groundingChunkIndices: [0] }] } : {}),
      };
    }
    chunks.push(last);
    return chunks;
  }

  return { url: `${origin}/v1beta`, requests, signatures, prompts, close };
}

/** Streamed chunks joined into one reply: texts of a kind run together, other parts kept whole. */
function merge(chunks: any[]): any {
  const last = chunks.at(-1);
  if (!last.candidates) return last;
  const parts: any[] = [];
  for (const chunk of chunks) {
    for (const part of chunk.candidates[0].content?.parts ?? []) {
      const previous = parts.at(-1);
      if (part.text !== undefined && previous?.text !== undefined && !previous.thoughtSignature && !!previous.thought === !!part.thought) {
        previous.text += part.text;
        if (part.thoughtSignature) previous.thoughtSignature = part.thoughtSignature;
      } else if (part.text !== '' || part.thoughtSignature) {
        parts.push({ ...part });
      }
    }
  }
  // An empty text kept only for its signature joins the text before it, as Gemini returns it.
  const tail = parts.at(-1);
  const beforeTail = parts.at(-2);
  if (tail?.text === '' && beforeTail?.text !== undefined && !beforeTail.thought && !beforeTail.thoughtSignature) {
    beforeTail.thoughtSignature = tail.thoughtSignature;
    parts.pop();
  }
  return { ...last, candidates: [{ ...last.candidates[0], content: { parts, role: 'model' } }] };
}

/**
 * GET /v1beta/models (https://ai.google.dev/api/models#method:-models.list): `pageSize` models a
 * page (50 by default, 1000 at most), `pageToken` to page on, `nextPageToken` when more follow.
 */
function modelPage(ids: string[], query: URLSearchParams) {
  const size = Math.min(1000, Math.max(1, Number(query.get('pageSize') ?? 50) || 50));
  const start = Number(query.get('pageToken') ?? 0) || 0;
  const models = ids.slice(start, start + size).map((id) => ({
    name: `models/${id}`,
    version: '001',
    displayName: id,
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: ['generateContent', 'countTokens'],
  }));
  return { models, ...(start + size < ids.length ? { nextPageToken: String(start + size) } : {}) };
}

/** The key comes in `x-goog-api-key`, or as the `key` query parameter. */
function authorised(request: RecordedRequest, res: ServerResponse, apiKey: string | undefined): boolean {
  const header = request.headers['x-goog-api-key'];
  const given = (Array.isArray(header) ? header[0] : header) ?? new URL(request.path, 'http://fake').searchParams.get('key') ?? undefined;
  if (!given) {
    sendJson(res, 403, geminiErrorBody(403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."));
    return false;
  }
  if (apiKey !== undefined && given !== apiKey) {
    sendJson(res, 400, geminiErrorBody(400, 'API key not valid. Please pass a valid API key.'));
    return false;
  }
  return true;
}
