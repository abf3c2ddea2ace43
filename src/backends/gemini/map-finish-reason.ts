import type { FinishReason } from '../../core/reply.js';

/**
 * Gemini's Candidate.FinishReason in canonical terms:
 * https://ai.google.dev/api/generate-content#FinishReason. Every reason that means a filter
 * stopped the answer (safety, recitation, blocklists, PII, images) is a content filter; a function
 * call the model could not form is an error. A call made under STOP is turned into `tool-calls` by
 * the decoders, which know whether the answer holds one.
 */
export function finishReasonFromGemini(reason: string | undefined): FinishReason {
  switch (reason) {
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'LANGUAGE':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
      return 'content-filter';
    case 'MALFORMED_FUNCTION_CALL':
    case 'UNEXPECTED_TOOL_CALL':
    case 'TOO_MANY_TOOL_CALLS':
      return 'error';
    default:
      // STOP, OTHER, FINISH_REASON_UNSPECIFIED and reasons added later.
      return 'stop';
  }
}

/** The canonical reason for an answer: calls made under a natural stop are what the client must act on. */
export function finishReasonFor(reason: string | undefined, madeToolCalls: boolean): FinishReason {
  const mapped = finishReasonFromGemini(reason);
  return madeToolCalls && mapped === 'stop' ? 'tool-calls' : mapped;
}
