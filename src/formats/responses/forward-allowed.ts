import type { Decoded } from '../client-format.js';
import type { ResponsesOptions } from './decode-request.js';

/**
 * Whether a Responses reply may pass untranslated from a Responses upstream. It may not when the
 * translated reply rewrites a part of it for a reason:
 * - `include: ["reasoning.encrypted_content"]`: the upstream's encrypted reasoning is sealed into
 *   a `svcr2.` payload, so it replays to any backend and the client cannot tell one from another;
 * - `previous_response_id`: the upstream never sees it (nothing is stored here), yet the response
 *   echoes it, as the Responses object does.
 * Sealed reasoning in the input needs nothing here: the decoder has opened it for the upstream
 * already, on either path. Tool names need nothing either: the upstream got the client's own tools.
 */
export function responsesForwardAllowed(decoded: Decoded<ResponsesOptions>): boolean {
  const { options } = decoded;
  return !options.includeEncryptedReasoning && options.previousResponseId === null;
}
