import { RouterError } from '../../core/errors.js';
import { upstreamText } from '../../core/redact.js';
import type { GeminiCandidate, GeminiError, GeminiFunctionCall, GeminiReplyPart, GeminiResponse, GeminiUsageMetadata } from '../../wire/gemini/types.js';

/** The checked reading of Gemini's replies (wire types: src/wire/gemini/types.ts). */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads a GenerateContentResponse (a whole reply, or one streamed chunk), checking every field the
 * decoders read: one that is there with the wrong type, or missing where it is required, is a 502
 * that names it. Fields nobody reads are not looked at, so additions to the API pass.
 */
export function readGeminiResponse(backend: string, raw: unknown): GeminiResponse {
  const fault = (path: string, what: string): RouterError =>
    new RouterError(502, 'upstream', `Backend '${backend}' sent a Gemini reply whose ${path} ${what}.`);
  if (!isObject(raw)) throw fault('body', 'is not a JSON object');
  if (raw.error !== undefined) throw geminiErrorOf(backend, raw.error);
  const optional = <T>(value: unknown, path: string, type: 'string' | 'number' | 'boolean'): T | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== type) throw fault(path, `is not a ${type}`);
    return value as T;
  };
  const response: GeminiResponse = {};
  const responseId = optional<string>(raw.responseId, 'responseId', 'string');
  if (responseId !== undefined) response.responseId = responseId;
  if (raw.promptFeedback !== undefined && raw.promptFeedback !== null) {
    if (!isObject(raw.promptFeedback)) throw fault('promptFeedback', 'is not an object');
    const blockReason = optional<string>(raw.promptFeedback.blockReason, 'promptFeedback.blockReason', 'string');
    response.promptFeedback = blockReason !== undefined ? { blockReason } : {};
  }
  if (raw.usageMetadata !== undefined && raw.usageMetadata !== null) {
    if (!isObject(raw.usageMetadata)) throw fault('usageMetadata', 'is not an object');
    const usage: GeminiUsageMetadata = {};
    for (const field of ['promptTokenCount', 'candidatesTokenCount', 'cachedContentTokenCount', 'thoughtsTokenCount', 'toolUsePromptTokenCount', 'totalTokenCount'] as const) {
      const value = optional<number>(raw.usageMetadata[field], `usageMetadata.${field}`, 'number');
      if (value !== undefined) usage[field] = value;
    }
    response.usageMetadata = usage;
  }
  if (raw.candidates === undefined || raw.candidates === null) {
    // Only a blocked prompt, or a streamed chunk carrying nothing but usage, comes without candidates.
    if (response.promptFeedback?.blockReason === undefined && response.usageMetadata === undefined) throw fault('candidates', 'is missing');
    return response;
  }
  if (!Array.isArray(raw.candidates)) throw fault('candidates', 'is not an array');
  response.candidates = raw.candidates.map((candidate, index): GeminiCandidate => {
    const path = `candidates[${index}]`;
    if (!isObject(candidate)) throw fault(path, 'is not an object');
    const read: GeminiCandidate = {};
    const finishReason = optional<string>(candidate.finishReason, `${path}.finishReason`, 'string');
    if (finishReason !== undefined) read.finishReason = finishReason;
    if (isObject(candidate.groundingMetadata)) read.groundingMetadata = candidate.groundingMetadata;
    // A candidate stopped by a filter (or by the cap while thinking) may carry no content at all.
    if (candidate.content === undefined || candidate.content === null) return read;
    if (!isObject(candidate.content)) throw fault(`${path}.content`, 'is not an object');
    const parts = candidate.content.parts;
    if (parts === undefined || parts === null) {
      read.content = {};
      return read;
    }
    if (!Array.isArray(parts)) throw fault(`${path}.content.parts`, 'is not an array');
    read.content = { parts: parts.map((part, partIndex) => readPart(part, `${path}.content.parts[${partIndex}]`)) };
    return read;
  });
  return response;

  function readPart(part: unknown, path: string): GeminiReplyPart {
    if (!isObject(part)) throw fault(path, 'is not an object');
    const read: GeminiReplyPart = {};
    const text = optional<string>(part.text, `${path}.text`, 'string');
    if (text !== undefined) read.text = text;
    if (optional<boolean>(part.thought, `${path}.thought`, 'boolean')) read.thought = true;
    const signature = optional<string>(part.thoughtSignature, `${path}.thoughtSignature`, 'string');
    if (signature) read.thoughtSignature = signature;
    if (part.functionCall !== undefined && part.functionCall !== null) {
      const call = part.functionCall;
      if (!isObject(call)) throw fault(`${path}.functionCall`, 'is not an object');
      if (typeof call.name !== 'string' || call.name === '') throw fault(`${path}.functionCall.name`, 'is missing');
      const decoded: GeminiFunctionCall = { name: call.name };
      if (call.args !== undefined && call.args !== null) {
        if (!isObject(call.args)) throw fault(`${path}.functionCall.args`, 'is not an object');
        decoded.args = call.args;
      }
      const id = optional<string>(call.id, `${path}.functionCall.id`, 'string');
      if (id) decoded.id = id;
      read.functionCall = decoded;
    } else if (text === undefined) {
      const kind = Object.keys(part).find((key) => key !== 'thought' && key !== 'thoughtSignature' && part[key] !== undefined && part[key] !== null);
      if (kind !== undefined) read.other = kind;
    }
    return read;
  }
}

/** A Gemini error object (in a 200 body or a streamed chunk) as the RouterError the client sees. */
function geminiErrorOf(backend: string, raw: unknown): RouterError {
  const error = (isObject(raw) ? raw : {}) as GeminiError;
  const said = typeof error.message === 'string' ? error.message : typeof raw === 'string' ? raw : (error.status ?? 'unknown error');
  const message = `Backend '${backend}' failed: ${upstreamText(said)}`;
  // google.rpc codes as HTTP statuses: https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
  if (error.status === 'RESOURCE_EXHAUSTED' || error.code === 429) return new RouterError(429, 'rate_limit', message, undefined, 'upstream_rate_limited');
  if (error.status === 'UNAVAILABLE' || error.code === 503) return new RouterError(503, 'overloaded', message, undefined, 'upstream_overloaded');
  return new RouterError(502, 'upstream', message, undefined, 'upstream_error');
}

/** What the client is told when Gemini answered with a part its format cannot carry. */
export const droppedPartWarning = (kind: string): string => `Gemini's answer held ${kind}, which the client's format cannot carry; it was left out.`;
