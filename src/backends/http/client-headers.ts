import type { CanonicalRequest, FormatName } from '../../core/request.js';

const NONE: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The client's headers its format lets through (src/formats/*: `forwardHeaders`, e.g.
 * `OpenAI-Beta`), for an upstream that speaks the client's format and is sent its body; none when
 * the request is translated, since the body then is the router's, in another API.
 */
export function forwardedClientHeaders(request: CanonicalRequest, wireFormat: FormatName): Readonly<Record<string, string>> {
  const forwardBody = request.forwardBody;
  return forwardBody?.format === wireFormat && forwardBody.headers ? forwardBody.headers : NONE;
}

/**
 * What of the request forwardedClientHeaders reads, as a string (HttpBackendSpec.headerVariant):
 * empty when the call carries no client header, else each name and value.
 */
export function forwardedClientVariant(request: CanonicalRequest, wireFormat: FormatName): string {
  const headers = forwardedClientHeaders(request, wireFormat);
  if (headers === NONE) return '';
  let variant = '';
  for (const name in headers) variant += `${name}\u0000${headers[name]}\u0000`;
  return variant;
}
