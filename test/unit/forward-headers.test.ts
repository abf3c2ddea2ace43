import { describe, expect, it } from 'vitest';
import { CREDENTIAL_HEADERS } from '../../src/config/declarative/placement.js';
import { FORMATS } from '../../src/formats/registry.js';

/**
 * The client headers a format passes to a same-format upstream are protocol headers only: never
 * one that carries a credential (the router key arrives in them; the upstream gets its own), one
 * a client reads its key from, or a hop-by-hop header, which belongs to one connection
 * (https://www.rfc-editor.org/rfc/rfc9110#section-7.6.1).
 */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'proxy-authorization', 'host', 'content-length'];

describe('forwarded client headers', () => {
  it.each(FORMATS.map((format) => [format.name, format] as const))('%s: passes on no credential, key source or hop-by-hop header', (_, format) => {
    const refused = new Set([...CREDENTIAL_HEADERS, ...HOP_BY_HOP, ...format.keySources.flatMap((source) => ('header' in source ? [source.header] : []))]);
    for (const name of format.forwardHeaders ?? []) {
      expect(name, 'forwardHeaders are matched against lower-cased names').toBe(name.toLowerCase());
      expect(refused.has(name), `${format.name} forwards ${name}`).toBe(false);
    }
  });

  it('every format passes on its own protocol headers: Messages its version and betas, Chat and Responses OpenAI-Beta', () => {
    expect(Object.fromEntries(FORMATS.map((format) => [format.name, format.forwardHeaders]))).toEqual({
      chat: ['openai-beta'],
      responses: ['openai-beta'],
      messages: ['anthropic-version', 'anthropic-beta'],
    });
  });
});
