import { createHash, randomBytes } from 'node:crypto';
import type { PromptRecord } from './prompt-cache.js';

/**
 * What a fake upstream model answers on one request, independent of the wire format. Each fake
 * renders it in its provider's exact shape, streaming or not.
 */
export interface ScriptedTurn {
  /** Emitted before the text: `reasoning_content` on OpenAI Chat, a thinking block on Anthropic. */
  reasoning?: { text: string; signature?: string };
  text?: string;
  /** `arguments` as a string is sent verbatim, so malformed JSON can be scripted. */
  toolCalls?: ScriptedToolCall[];
  /**
   * `input` counts every prompt token including the `cached` ones (OpenAI's convention); the
   * Anthropic fake reports `input - cached` as input_tokens and `cached` as cache reads.
   * Defaults to a rough estimate from the request and the answer.
   */
  usage?: { input: number; output: number; cached?: number; cacheWrite?: number };
  /** The Anthropic fake's own stop_reason and stop_sequence (`pause_turn`, `stop_sequence` + '###', `refusal`), over `stop`. */
  anthropicStop?: { reason: string; sequence?: string };
  /**
   * Anthropic only: fields the reply carries beyond the fake's own, set in `message_delta.delta`
   * when streaming and on the message otherwise (e.g. auto mode's `safeguard_results`). A function
   * gets the tool_use ids of the turn, for verdicts that name them.
   */
  anthropicExtra?: Record<string, unknown> | ((toolUseIds: string[]) => Record<string, unknown>);
  /** OpenAI Responses only: fields the final response object carries beyond the fake's own (e.g. `prompt_cache_diagnostics`). */
  responsesExtra?: Record<string, unknown>;
  /** Defaults to 'tool_calls' when there are tool calls, 'stop' otherwise. */
  stop?: 'stop' | 'length' | 'tool_calls';
  /** A non-2xx status answers with an error instead (before any stream starts). */
  status?: number;
  /** Error body for `status`; a string is sent raw. Defaults to the provider's error shape. */
  errorBody?: unknown;
  /** Extra response headers, e.g. `retry-after` on a 429. */
  headers?: Record<string, string>;
  /** Characters (code points) per streamed delta; default 4. */
  chunkSize?: number;
  /**
   * The model searches the web before its text, when the request offers the provider's own search
   * tool (test/fakes/web-search.ts): on `query`, else the last user text. The text then cites the
   * first page found.
   */
  webSearch?: { query?: string };
}

export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: object | string;
}

/**
 * Turns consumed in order, one per request (the last repeats once the list runs out), or a
 * function of the parsed request body and the 0-based request number.
 */
export type Script<Body = any> =
  | readonly ScriptedTurn[]
  | ((requestBody: Body, index: number) => ScriptedTurn | Promise<ScriptedTurn>);

/** Hands out the turn for each successive request of one fake. */
export function scriptCursor<Body>(script: Script<Body>): (requestBody: Body) => Promise<ScriptedTurn> {
  if (typeof script !== 'function' && script.length === 0) throw new Error('a fake upstream script needs at least one turn');
  let index = 0;
  return async (requestBody) => {
    const current = index++;
    if (typeof script === 'function') return script(requestBody, current);
    return script[Math.min(current, script.length - 1)]!;
  };
}

export const DEFAULT_CHUNK_SIZE = 4;

/**
 * Splits on code point boundaries, never inside a surrogate pair, so every piece is valid text on
 * its own. Multi-code-point graphemes (👋🏽, flags, ZWJ sequences) can still land in different
 * pieces, which is what clients must cope with.
 */
export function splitText(text: string, chunkSize = DEFAULT_CHUNK_SIZE): string[] {
  const codePoints = Array.from(text);
  const size = Math.max(1, Math.floor(chunkSize));
  const pieces: string[] = [];
  for (let i = 0; i < codePoints.length; i += size) pieces.push(codePoints.slice(i, i + size).join(''));
  return pieces;
}

export function argumentsJson(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

export function stopReason(turn: ScriptedTurn): 'stop' | 'length' | 'tool_calls' {
  return turn.stop ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop');
}

export interface TurnUsage {
  /** Every prompt token, cached or not. */
  input: number;
  output: number;
  /** Prompt tokens read from the cache. */
  cached: number;
  /** Prompt tokens written to the cache, all of them (Anthropic's cache_creation_input_tokens)... */
  cacheWrite: number;
  /** ...of which written for an hour (the rest for five minutes). */
  cacheWrite1h: number;
}

/**
 * The scripted usage; else, when the fake caches prompts, the prompt's tokens and what its cache
 * read and wrote; else a deterministic estimate of about four characters per token, nothing cached.
 */
export function usageFor(turn: ScriptedTurn, requestBody: unknown, prompt?: PromptRecord): TurnUsage {
  if (turn.usage) return { input: turn.usage.input, output: turn.usage.output, cached: turn.usage.cached ?? 0, cacheWrite: turn.usage.cacheWrite ?? 0, cacheWrite1h: 0 };
  const produced =
    (turn.reasoning?.text ?? '') + (turn.text ?? '') + (turn.toolCalls ?? []).map((call) => call.name + argumentsJson(call)).join('');
  const output = Math.max(1, Math.ceil(produced.length / 4));
  if (prompt) return { input: prompt.inputTokens, output, cached: prompt.cachedTokens, cacheWrite: prompt.cacheWriteTokens, cacheWrite1h: prompt.cacheWriteByTtl['1h'] };
  return { input: Math.max(1, Math.ceil((JSON.stringify(requestBody) ?? '').length / 4)), output, cached: 0, cacheWrite: 0, cacheWrite1h: 0 };
}

/** A provider-style opaque id: prefix plus random alphanumerics. */
export function randomId(prefix: string, length = 24): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return prefix + Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('');
}

/** A stable stand-in for a thinking signature when the turn does not script one. */
export function defaultSignature(reasoning: string): string {
  return createHash('sha256').update(reasoning).digest('base64');
}
