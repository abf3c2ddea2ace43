import { invalidRequest } from '../../core/errors.js';
import type { ReasoningEffort } from '../../core/request.js';

const EFFORTS: readonly string[] = ['minimal', 'low', 'medium', 'high'];

/** Reads a reasoning effort; `none` and `xhigh` are folded to the nearest level every backend knows. */
export function parseReasoningEffort(value: string | undefined, path: string): ReasoningEffort | undefined {
  if (value === undefined || value === 'none') return undefined;
  if (value === 'xhigh' || value === 'max') return 'high';
  if (EFFORTS.includes(value)) return value as ReasoningEffort;
  throw invalidRequest(`${path}: expected one of minimal, low, medium, high.`, path);
}
