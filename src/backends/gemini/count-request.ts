import type { CanonicalRequest } from '../../core/request.js';
import { encodeGeminiRequest } from './encode-request.js';
import { versionedBase } from './endpoint.js';

/**
 * Gemini's token count for a request, as the route's Gemini upstream counts it
 * (https://ai.google.dev/api/tokens#method:-models.counttokens): the generateContent body this
 * backend would send (a Gemini client's own, or the translation of another's) as a whole
 * `generateContentRequest`, so the system instruction and tools are counted too. Undefined when
 * this backend would refuse the request (it is then estimated).
 */
export function geminiCountRequest(baseUrl: string, apiVersion: string | undefined, key: string | undefined, upstreamModel: string, request: CanonicalRequest): { url: string; headers: Record<string, string>; body: unknown } | undefined {
  let body: Record<string, unknown>;
  try {
    body = encodeGeminiRequest(request, upstreamModel, false) as unknown as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const model = upstreamModel.replace(/^models\//, '');
  return {
    url: `${versionedBase(baseUrl.replace(/\/+$/, ''), apiVersion)}/models/${encodeURIComponent(model)}:countTokens`,
    headers: key ? { 'x-goog-api-key': key } : {},
    body: { generateContentRequest: { ...body, model: `models/${model}` } },
  };
}

/** The count in Gemini's answer (`totalTokens`), when it is a whole number. */
export function geminiTotalTokens(reply: unknown): number | undefined {
  const total = (reply as { totalTokens?: unknown } | null)?.totalTokens;
  return typeof total === 'number' && Number.isSafeInteger(total) && total >= 0 ? total : undefined;
}
