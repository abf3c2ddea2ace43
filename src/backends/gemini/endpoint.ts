/** The API version a base URL without one gets (thought signatures and thinking need v1beta). */
export const GEMINI_API_VERSION = 'v1beta';

/** The base URL with its API version: as configured when it names one (…/v1beta), else with v1beta. */
export const versionedBase = (baseUrl: string): string => (/\/v\d+(?:alpha|beta)?\d*$/.test(baseUrl) ? baseUrl : `${baseUrl}/${GEMINI_API_VERSION}`);

/**
 * What Gemini's answer to a key it does not know says: 400 INVALID_ARGUMENT, "API key not valid",
 * reason API_KEY_INVALID (not 401).
 */
export const KEY_NOT_VALID = /API key not valid|API_KEY_INVALID/;
