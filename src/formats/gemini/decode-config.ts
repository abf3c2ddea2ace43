import { invalidRequest } from '../../core/errors.js';
import type { CanonicalRequest, ReasoningEffort } from '../../core/request.js';
import { keepForSameFormat } from '../../core/same-format-only.js';
import { asObject, optionalBoolean, optionalInteger, optionalNumber, optionalString, optionalStringList, type Json } from '../shared/read-fields.js';
import { jsonSchemaFromGemini } from './json-schema.js';

/** What of generationConfig only the encoder needs. */
export interface DecodedConfig {
  /** Thought summaries asked for (`thinkingConfig.includeThoughts`): thought parts carry their text. */
  includeThoughts: boolean;
}

/** Gemini 3's thinking levels, as the canonical effort of the same name. */
const LEVELS: Readonly<Record<string, ReasoningEffort>> = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high' };

/** The settings read below; any other is named (steering only Gemini, or unknown). */
const MODELLED = new Set([
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'candidateCount',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
]);

/**
 * `generationConfig` (https://ai.google.dev/api/generate-content#generationconfig) in canonical
 * terms: sampling, the output cap, stop sequences, seed and penalties as they are; JSON output with
 * a schema (Gemini's Schema or JSON Schema) or without; thinking as a budget (0 is off, -1 the
 * model's own choice) or a level, its summaries shown or not. Settings with no counterpart off
 * Gemini (more than one candidate, response modalities, logprobs, speech, media resolution) reach
 * only a Gemini upstream and are named elsewhere.
 */
export function decodeGenerationConfig(raw: unknown, request: CanonicalRequest): DecodedConfig {
  if (raw === undefined || raw === null) return { includeThoughts: false };
  const config = asObject(raw, 'generationConfig');
  const at = (key: string) => `generationConfig.${key}`;
  const temperature = optionalNumber(config, 'temperature', at('temperature'), { min: 0, max: 2 });
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(config, 'topP', at('topP'), { min: 0, max: 1 });
  if (topP !== undefined) request.topP = topP;
  const topK = optionalInteger(config, 'topK', at('topK'));
  if (topK !== undefined) request.topK = topK;
  const maxOutputTokens = optionalInteger(config, 'maxOutputTokens', at('maxOutputTokens'));
  if (maxOutputTokens !== undefined) request.maxOutputTokens = maxOutputTokens;
  const stop = optionalStringList(config, 'stopSequences', at('stopSequences'));
  if (stop?.length) request.stop = stop;
  const seed = optionalInteger(config, 'seed', at('seed'), Number.MIN_SAFE_INTEGER);
  if (seed !== undefined) request.seed = seed;
  const presence = optionalNumber(config, 'presencePenalty', at('presencePenalty'), { min: -2, max: 2 });
  if (presence !== undefined) request.presencePenalty = presence;
  const frequency = optionalNumber(config, 'frequencyPenalty', at('frequencyPenalty'), { min: -2, max: 2 });
  if (frequency !== undefined) request.frequencyPenalty = frequency;
  const candidates = optionalInteger(config, 'candidateCount', at('candidateCount'));
  if (candidates !== undefined && candidates > 1) keepForSameFormat(request, at('candidateCount'), `only a Gemini upstream answers with ${candidates} candidates; this route answers with one.`, false);
  decodeOutputFormat(config, request);
  const includeThoughts = decodeThinking(config.thinkingConfig, request);
  for (const key of Object.keys(config)) {
    if (MODELLED.has(key) || config[key] === undefined || config[key] === null) continue;
    keepForSameFormat(request, at(key), `only a Gemini upstream reads ${key}; this route answers without it.`, false);
  }
  return { includeThoughts };
}

/** `responseMimeType` with `responseSchema` or `responseJsonSchema`: structured output, or plain JSON without a schema. */
function decodeOutputFormat(config: Json, request: CanonicalRequest): void {
  const mimeType = optionalString(config, 'responseMimeType', 'generationConfig.responseMimeType');
  const jsonSchema = config.responseJsonSchema;
  const schema =
    jsonSchema !== undefined && jsonSchema !== null
      ? asObject(jsonSchema, 'generationConfig.responseJsonSchema')
      : config.responseSchema !== undefined && config.responseSchema !== null
        ? jsonSchemaFromGemini(asObject(config.responseSchema, 'generationConfig.responseSchema'))
        : undefined;
  if (mimeType === 'text/x.enum') {
    // Gemini's enum mode: the answer is one of the schema's values, as plain text.
    keepForSameFormat(request, 'generationConfig.responseMimeType', "'text/x.enum' (an answer that is one of an enum's values) is Gemini's own; this route answers in plain text.", false);
    return;
  }
  if (schema) {
    if (mimeType !== undefined && mimeType !== 'application/json') throw invalidRequest(`generationConfig.responseMimeType: a response schema needs 'application/json', got '${mimeType.slice(0, 40)}'.`, 'generationConfig.responseMimeType');
    request.outputSchema = { name: 'response', schema };
  } else if (mimeType === 'application/json') {
    request.jsonObject = true;
  } else if (mimeType !== undefined && mimeType !== 'text/plain') {
    keepForSameFormat(request, 'generationConfig.responseMimeType', `only a Gemini upstream answers as '${mimeType.slice(0, 40)}'; this route answers in plain text.`, false);
  }
}

/**
 * `thinkingConfig` (https://ai.google.dev/gemini-api/docs/thinking): a budget in tokens (0 turns
 * thinking off, -1 leaves it to the model), or a level (Gemini 3); `includeThoughts` asks for
 * thought summaries, and without it they are omitted, as Gemini omits them.
 */
function decodeThinking(raw: unknown, request: CanonicalRequest): boolean {
  if (raw === undefined || raw === null) return false;
  const thinking = asObject(raw, 'generationConfig.thinkingConfig');
  const budget = optionalInteger(thinking, 'thinkingBudget', 'generationConfig.thinkingConfig.thinkingBudget', -1);
  if (budget === 0) request.reasoningEffort = 'none';
  else if (budget !== undefined && budget > 0) request.reasoningBudget = budget;
  const level = optionalString(thinking, 'thinkingLevel', 'generationConfig.thinkingConfig.thinkingLevel')?.toUpperCase();
  if (level !== undefined && level !== 'THINKING_LEVEL_UNSPECIFIED') {
    const effort = Object.hasOwn(LEVELS, level) ? LEVELS[level] : undefined;
    if (!effort) throw invalidRequest(`generationConfig.thinkingConfig.thinkingLevel: expected MINIMAL, LOW, MEDIUM or HIGH, got '${level.slice(0, 40)}'.`, 'generationConfig.thinkingConfig.thinkingLevel');
    request.reasoningEffort = effort;
  }
  // Thinking on by budget (or left to the model, -1) is on at the middle effort for a model that
  // takes an effort, not a budget (OpenAI's), as an Anthropic budget is (messages/decode-request.ts).
  if (request.reasoningBudget !== undefined || budget === -1) request.reasoningEffort ??= 'medium';
  for (const key of Object.keys(thinking)) {
    if (['thinkingBudget', 'thinkingLevel', 'includeThoughts'].includes(key) || thinking[key] === undefined || thinking[key] === null) continue;
    keepForSameFormat(request, `generationConfig.thinkingConfig.${key}`, `only a Gemini upstream reads ${key}; this route thinks without it.`, false);
  }
  const include = optionalBoolean(thinking, 'includeThoughts', 'generationConfig.thinkingConfig.includeThoughts') ?? false;
  request.reasoningDisplay = include ? 'summarized' : 'omitted';
  return include;
}
