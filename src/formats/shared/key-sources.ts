import type { KeySource } from '../../identity/authenticate.js';

/**
 * Where the OpenAI and Anthropic SDKs put a key: `x-api-key`, else `Authorization: Bearer`. Every
 * format reads both, in this order, so a client that sets both (Claude Code with ANTHROPIC_API_KEY
 * and a token) is read the same way on every endpoint.
 */
export const API_KEY_OR_BEARER: readonly KeySource[] = [{ header: 'x-api-key' }, { header: 'authorization', scheme: 'bearer' }];
