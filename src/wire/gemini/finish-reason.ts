import type { FinishReason } from '../../core/reply.js';

/**
 * Gemini's Candidate.FinishReason (https://ai.google.dev/api/generate-content#FinishReason) and
 * what each means in canonical terms: every reason that means a filter stopped the answer (safety,
 * recitation, blocklists, PII, images) is a content filter; a function call the model could not
 * form is an error; the rest (STOP, OTHER, …) a natural stop. A call made under STOP is turned into
 * `tool-calls` by the decoders, which know whether the answer holds one.
 */
const MEANING: Readonly<Record<string, FinishReason>> = {
  FINISH_REASON_UNSPECIFIED: 'stop',
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content-filter',
  RECITATION: 'content-filter',
  LANGUAGE: 'content-filter',
  OTHER: 'stop',
  BLOCKLIST: 'content-filter',
  PROHIBITED_CONTENT: 'content-filter',
  SPII: 'content-filter',
  MALFORMED_FUNCTION_CALL: 'error',
  IMAGE_SAFETY: 'content-filter',
  UNEXPECTED_TOOL_CALL: 'error',
  TOO_MANY_TOOL_CALLS: 'error',
  IMAGE_PROHIBITED_CONTENT: 'content-filter',
  NO_IMAGE: 'stop',
  IMAGE_RECITATION: 'content-filter',
  IMAGE_OTHER: 'stop',
};

/** The reason Gemini gives for each canonical one: tool calls end under STOP, an error as OTHER. */
const GEMINI_REASON: Readonly<Record<FinishReason, string>> = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  'tool-calls': 'STOP',
  'content-filter': 'SAFETY',
  error: 'OTHER',
};

/** A Gemini reason in canonical terms; a reason added after this table is a natural stop. */
export function finishReasonFromGemini(reason: string | undefined): FinishReason {
  return reason !== undefined && Object.hasOwn(MEANING, reason) ? MEANING[reason]! : 'stop';
}

/** The canonical reason for an answer: calls made under a natural stop are what the client must act on. */
export function finishReasonFor(reason: string | undefined, madeToolCalls: boolean): FinishReason {
  const mapped = finishReasonFromGemini(reason);
  return madeToolCalls && mapped === 'stop' ? 'tool-calls' : mapped;
}

/**
 * The finishReason a Gemini client is told: the upstream's own word when it is one of Gemini's and
 * says the same (a Gemini upstream's RECITATION stays RECITATION), else Gemini's word for the
 * canonical reason (Anthropic's `refusal`, a content filter, becomes SAFETY).
 */
export function geminiFinishReason(reason: FinishReason, raw?: string): string {
  if (raw !== undefined && Object.hasOwn(MEANING, raw) && (MEANING[raw] === reason || GEMINI_REASON[reason] === raw)) return raw;
  return GEMINI_REASON[reason];
}
