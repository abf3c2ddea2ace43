/** The Messages API version every call names (https://docs.anthropic.com/en/api/versioning). */
export const ANTHROPIC_VERSION = '2023-06-01';
