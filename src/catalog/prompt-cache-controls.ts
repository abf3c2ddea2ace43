import type { BackendType } from '../core/backend-types.js';
import type { ChatProfileName } from '../core/chat-profiles.js';
import { metadataOf } from '../core/provider-metadata.js';
import type { CanonicalRequest, FormatName, Part } from '../core/request.js';
import { capabilityRow } from './model-capabilities.js';

/**
 * OpenAI's explicit prompt-cache controls (GPT-5.6 and later,
 * https://platform.openai.com/docs/guides/prompt-caching): `prompt_cache_breakpoint` on a content
 * part, `prompt_cache_options` (`mode`, `ttl`) and, on the Responses API, diagnostics
 * (`prompt_cache_options.comparison_response_id`,
 * https://developers.openai.com/api/docs/guides/prompt-caching/diagnostics). A target gets them
 * where its model's row takes them (`promptCacheBreakpoints`, `promptCacheDiagnostics`) and its host
 * passes them on: OpenAI's own API (an openai-chat backend with no provider profile, an
 * openai-responses backend) and OpenRouter, which takes them "only for OpenAI GPT-5.6 and newer"
 * (https://openrouter.ai/docs/client-sdks/typescript/models/promptcacheoptions). Other
 * OpenAI-compatible servers refuse them with a 400 ("prompt_cache_breakpoint is not supported on
 * this model"; NVIDIA NIM's "Unsupported parameter(s): prompt_cache_options"), so they are left
 * out there and named, as on every Anthropic, Gemini or Bedrock target.
 */
export interface CacheControlsTaken {
  breakpoints: boolean;
  diagnostics: boolean;
}

/** The provider profiles whose hosts pass OpenAI's cache controls on; undefined is OpenAI's own API. */
const PASSING_HOSTS: ReadonlySet<ChatProfileName | undefined> = new Set([undefined, 'openrouter']);

export function cacheControlsTaken(type: BackendType | undefined, upstreamModel: string, profile?: ChatProfileName): CacheControlsTaken {
  const row = capabilityRow(type, upstreamModel)?.capabilities;
  const host = type === 'openai-responses' || (type === 'openai-chat' && PASSING_HOSTS.has(profile));
  return { breakpoints: host && row?.promptCacheBreakpoints === true, diagnostics: host && type === 'openai-responses' && row?.promptCacheDiagnostics === true };
}

/** The client's breakpoint on a part, as it sent it. */
export const breakpointOf = (part: Part): Record<string, unknown> | undefined => {
  const held = metadataOf(part.providerMetadata, 'openai')?.promptCacheBreakpoint;
  return typeof held === 'object' && held !== null ? (held as Record<string, unknown>) : undefined;
};

/** How many parts carry a breakpoint: the system prompt, messages and tool results. */
export function breakpointsIn(request: CanonicalRequest): number {
  const marked = (parts: readonly Part[]): number => parts.reduce((count, part) => count + (breakpointOf(part) ? 1 : 0) + (part.type === 'tool-result' ? marked(part.content) : 0), 0);
  return marked(request.system) + request.messages.reduce((count, message) => count + marked(message.content), 0);
}

/** The `prompt_cache_options` a target that takes them is sent: `mode` and `ttl`, and the comparison where it diagnoses. */
export function promptCacheOptionsFor(request: CanonicalRequest, taken: CacheControlsTaken): Record<string, string> | undefined {
  const options = request.promptCacheOptions;
  if (!options || !taken.breakpoints) return undefined;
  const sent = { ...(options.mode ? { mode: options.mode } : {}), ...(options.ttl ? { ttl: options.ttl } : {}), ...(taken.diagnostics && options.comparisonResponseId ? { comparison_response_id: options.comparisonResponseId } : {}) };
  return Object.keys(sent).length ? sent : undefined;
}

/** What of the client's cache controls a target is not sent, each named once. */
export function unsentCacheControls(request: CanonicalRequest, taken: CacheControlsTaken, upstreamModel: string): string[] {
  const warnings: string[] = [];
  const why = `${upstreamModel} on this route does not take OpenAI's explicit prompt-cache controls (GPT-5.6 and later do, on OpenAI's API); the upstream caches as it does by default.`;
  if (!taken.breakpoints) {
    const count = breakpointsIn(request);
    if (count) warnings.push(`prompt_cache_breakpoint not sent (${count} content part${count === 1 ? '' : 's'}): ${why}`);
    const { mode, ttl } = request.promptCacheOptions ?? {};
    if (mode || ttl) warnings.push(`prompt_cache_options not sent: ${why}`);
  }
  if (!taken.diagnostics && request.promptCacheOptions?.comparisonResponseId) {
    warnings.push(`prompt_cache_options.comparison_response_id not sent: ${upstreamModel} on this route gives no prompt-cache diagnostics (OpenAI's Responses API does, for GPT-5.6 and later).`);
  }
  return warnings;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A client's own Chat or Responses body without the cache controls its target does not take: the
 * breakpoints on its content parts, `prompt_cache_options`, or only the comparison in it. The body
 * itself when nothing is to go.
 */
export function forwardedWithoutCacheControls(body: Record<string, unknown>, format: FormatName, taken: CacheControlsTaken): Record<string, unknown> {
  if (taken.breakpoints && taken.diagnostics) return body;
  let changed = false;
  const withoutBreakpoint = (part: unknown): unknown => {
    if (!isObject(part) || part.prompt_cache_breakpoint === undefined) return part;
    changed = true;
    const { prompt_cache_breakpoint: _left, ...rest } = part;
    return rest;
  };
  const items = format === 'chat' ? body.messages : format === 'responses' ? body.input : undefined;
  const edited: Record<string, unknown> = { ...body };
  if (!taken.breakpoints && Array.isArray(items)) {
    const key = format === 'chat' ? 'messages' : 'input';
    edited[key] = items.map((item) => {
      if (!isObject(item)) return item;
      const out: Record<string, unknown> = { ...item };
      if (Array.isArray(item.content)) out.content = item.content.map(withoutBreakpoint);
      // A Responses function_call_output may carry input_text and input_image parts too.
      if (Array.isArray(item.output)) out.output = item.output.map(withoutBreakpoint);
      return out;
    });
  }
  const options = body.prompt_cache_options;
  if (isObject(options)) {
    if (!taken.breakpoints) {
      delete edited.prompt_cache_options;
      changed = true;
    } else if (!taken.diagnostics && options.comparison_response_id !== undefined) {
      const { comparison_response_id: _left, ...rest } = options;
      if (Object.keys(rest).length) edited.prompt_cache_options = rest;
      else delete edited.prompt_cache_options;
      changed = true;
    }
  }
  return changed ? edited : body;
}
