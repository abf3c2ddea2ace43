import { invalidRequest } from '../../core/errors.js';
import { REASONING_EFFORTS, type ReasoningEffort } from '../../core/request.js';

/** Reads a reasoning effort as the client named it; each backend maps it to what its model takes. */
export function parseReasoningEffort(value: string | undefined, path: string): ReasoningEffort | undefined {
  if (value === undefined) return undefined;
  if ((REASONING_EFFORTS as readonly string[]).includes(value)) return value as ReasoningEffort;
  throw invalidRequest(`${path}: expected one of ${REASONING_EFFORTS.join(', ')}.`, path);
}
