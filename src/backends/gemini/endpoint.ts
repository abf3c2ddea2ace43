/** The API version a base URL without one gets (thought signatures and thinking need v1beta). */
export const GEMINI_API_VERSION = 'v1beta';

const NAMED_VERSION = /\/v\d+(?:alpha|beta)?\d*$/;

/**
 * The base URL with its API version (https://ai.google.dev/gemini-api/docs/api-versions): the
 * backend's `apiVersion` when set (in place of any the base URL names: the config refuses the two
 * disagreeing, so this is for a hand-edited file), else the one the base URL names (…/v1beta),
 * else v1beta.
 */
export const versionedBase = (baseUrl: string, apiVersion?: string): string => {
  if (apiVersion) return `${baseUrl.replace(NAMED_VERSION, '')}/${apiVersion}`;
  return NAMED_VERSION.test(baseUrl) ? baseUrl : `${baseUrl}/${GEMINI_API_VERSION}`;
};

/**
 * What Gemini's answer to a key it does not know says: 400 INVALID_ARGUMENT, "API key not valid",
 * reason API_KEY_INVALID (not 401).
 */
export const KEY_NOT_VALID = /API key not valid|API_KEY_INVALID/;
