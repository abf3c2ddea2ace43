import { invalidRequest } from './errors.js';
import type { CanonicalRequest } from './request.js';

/**
 * Parts and settings a client format decoder keeps for a same-format upstream only (a replayed
 * hosted-tool item, a block type the canonical form has no counterpart for, logprobs). They reach
 * such an upstream in the forwardBody; a backend that translates instead calls
 * translatableOrRefuse(), which refuses the request with a 400 naming the first part that would
 * otherwise vanish, and returns the warnings for settings it cannot honour.
 */
export function keepForSameFormat(request: CanonicalRequest, param: string, message: string, refuse = true): void {
  (request.sameFormatOnly ??= []).push({ param, message, refuse });
}

export function translatableOrRefuse(request: CanonicalRequest): string[] {
  const entries = request.sameFormatOnly ?? [];
  const refused = entries.find((entry) => entry.refuse);
  if (refused) throw invalidRequest(`${refused.param}: ${refused.message}`, refused.param);
  return entries.map((entry) => `${entry.param}: ${entry.message}`);
}
