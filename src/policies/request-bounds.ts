import { RouterError } from '../core/errors.js';
import type { CanonicalRequest } from '../core/request.js';
import type { Policy } from './policy.js';

/** Far beyond any real conversation or tool set; past these a request is refused, not processed. */
export const MAX_MESSAGES = 10_000;
export const MAX_TOOLS = 1_000;

/** Bounds the work one request can ask for: 413 for too many messages, 400 for too many tools. */
function checkRequestBounds(request: CanonicalRequest): void {
  if (request.messages.length > MAX_MESSAGES) {
    throw new RouterError(413, 'too_large', `The conversation has ${request.messages.length} messages; at most ${MAX_MESSAGES} are accepted.`, 'messages', 'too_many_messages');
  }
  // Deferred tools held back count too: each is still decoded, kept and searched.
  const tools = request.tools.length + (request.deferredTools?.length ?? 0);
  if (tools > MAX_TOOLS) {
    throw new RouterError(400, 'invalid_request', `The request declares ${tools} tools; at most ${MAX_TOOLS} are accepted.`, 'tools', 'too_many_tools');
  }
}

/** The cheapest refusal, so it runs first: two lengths, and nothing to settle. */
export const requestBounds: Policy = {
  name: 'request-bounds',
  onCounts: true,
  admit(input) {
    checkRequestBounds(input.request);
    return undefined;
  },
};
