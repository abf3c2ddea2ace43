import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeAnthropicRequest } from '../../../src/backends/anthropic/encode-request.js';
import { encodeGeminiRequest } from '../../../src/backends/gemini/encode-request.js';
import { encodeResponsesRequest } from '../../../src/backends/openai-responses/encode-request.js';
import type { CanonicalRequest } from '../../../src/core/request.js';
import { decodeChatRequest } from '../../../src/formats/chat/decode-request.js';
import { decodeMessagesRequest } from '../../../src/formats/messages/decode-request.js';
import { decodeResponsesRequest } from '../../../src/formats/responses/decode-request.js';

/**
 * Every web search option a client sets either reaches a translating upstream in that upstream's
 * own field, or is named in the warnings the client gets (svc_meta.warnings, x-svc-warning):
 * nothing about a search is silently dropped, whichever format asked and whichever upstream runs it.
 */

interface Options {
  allowedDomains?: string[];
  blockedDomains?: string[];
  maxUses?: number;
  userLocation?: { city?: string; region?: string; country?: string; timezone?: string };
  contextSize?: 'low' | 'medium' | 'high';
}

const domain = fc.stringMatching(/^[a-z]{1,8}\.(com|org|dev)$/);
const word = fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,10}$/);
const options: fc.Arbitrary<Options> = fc.record(
  {
    allowedDomains: fc.array(domain, { minLength: 1, maxLength: 3 }),
    blockedDomains: fc.array(domain, { minLength: 1, maxLength: 3 }),
    maxUses: fc.integer({ min: 1, max: 10 }),
    userLocation: fc.record({ city: word, region: word, country: fc.constantFrom('US', 'FR', 'JP'), timezone: fc.constantFrom('Europe/Paris', 'Asia/Tokyo') }, { requiredKeys: [] }),
    contextSize: fc.constantFrom('low' as const, 'medium' as const, 'high' as const),
  },
  { requiredKeys: [] },
);

const location = (spec: Options['userLocation']) => (spec && Object.keys(spec).length ? spec : undefined);

/** Each format's body offering search with the options it can express; the names of those it set. */
const CLIENTS = {
  messages(o: Options) {
    const tool: Record<string, unknown> = { type: 'web_search_20250305', name: 'web_search' };
    if (o.allowedDomains) tool.allowed_domains = o.allowedDomains;
    if (o.blockedDomains) tool.blocked_domains = o.blockedDomains;
    if (o.maxUses !== undefined) tool.max_uses = o.maxUses;
    if (location(o.userLocation)) tool.user_location = { type: 'approximate', ...o.userLocation };
    return decodeMessagesRequest({ model: 'svc.intelligent-pro', max_tokens: 100, messages: [{ role: 'user', content: 'q' }], tools: [tool] }).request;
  },
  responses(o: Options) {
    const tool: Record<string, unknown> = { type: 'web_search' };
    if (o.allowedDomains || o.blockedDomains) tool.filters = { ...(o.allowedDomains ? { allowed_domains: o.allowedDomains } : {}), ...(o.blockedDomains ? { blocked_domains: o.blockedDomains } : {}) };
    if (location(o.userLocation)) tool.user_location = { type: 'approximate', ...o.userLocation };
    if (o.contextSize) tool.search_context_size = o.contextSize;
    return decodeResponsesRequest({ model: 'svc.intelligent-pro', input: 'q', tools: [tool] }, { secret: 'secret' }).request;
  },
  chat(o: Options) {
    const searchOptions: Record<string, unknown> = {};
    if (location(o.userLocation)) searchOptions.user_location = { type: 'approximate', approximate: o.userLocation };
    if (o.contextSize) searchOptions.search_context_size = o.contextSize;
    return decodeChatRequest({ model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'q' }], web_search_options: searchOptions }).request;
  },
};

type Wire = 'allowed_domains' | 'blocked_domains' | 'max_uses' | 'user_location' | 'search_context_size';

/** Whether an option reached the upstream's body in its own field. */
const UPSTREAMS: Record<string, { encode(request: CanonicalRequest): any; reached(body: any, option: Wire, request: CanonicalRequest): boolean; offered(body: any): boolean }> = {
  anthropic: {
    encode: (request) => encodeAnthropicRequest(request, 'claude-x', false),
    offered: (body) => body.tools?.some((tool: any) => tool.type === 'web_search_20250305'),
    reached(body, option, request) {
      const tool = body.tools.find((candidate: any) => candidate.type === 'web_search_20250305');
      const spec = request.webSearch!;
      if (option === 'allowed_domains') return JSON.stringify(tool.allowed_domains) === JSON.stringify(spec.allowedDomains);
      if (option === 'blocked_domains') return JSON.stringify(tool.blocked_domains) === JSON.stringify(spec.blockedDomains);
      if (option === 'max_uses') return tool.max_uses === spec.maxUses;
      if (option === 'user_location') return Object.entries(spec.userLocation!).every(([key, value]) => tool.user_location?.[key] === value);
      return false;
    },
  },
  'openai-responses': {
    encode: (request) => encodeResponsesRequest(request, 'gpt-x', false),
    offered: (body) => body.tools?.some((tool: any) => tool.type === 'web_search'),
    reached(body, option, request) {
      const tool = body.tools.find((candidate: any) => candidate.type === 'web_search');
      const spec = request.webSearch!;
      if (option === 'allowed_domains') return JSON.stringify(tool.filters?.allowed_domains) === JSON.stringify(spec.allowedDomains);
      if (option === 'max_uses') return body.max_tool_calls === spec.maxUses;
      if (option === 'user_location') return Object.entries(spec.userLocation!).every(([key, value]) => tool.user_location?.[key] === value);
      if (option === 'search_context_size') return tool.search_context_size === spec.contextSize;
      return false;
    },
  },
  gemini: {
    encode: (request) => encodeGeminiRequest(request, 'gemini-x', false),
    offered: (body) => body.tools?.some((tool: any) => tool.googleSearch !== undefined),
    reached: () => false,
  },
};

const WIRE: Array<[keyof Options, Wire]> = [
  ['allowedDomains', 'allowed_domains'],
  ['blockedDomains', 'blocked_domains'],
  ['maxUses', 'max_uses'],
  ['userLocation', 'user_location'],
  ['contextSize', 'search_context_size'],
];

describe('web search options on a translating route', () => {
  for (const [format, decode] of Object.entries(CLIENTS)) {
    for (const [upstream, { encode, reached, offered }] of Object.entries(UPSTREAMS)) {
      it(`each option a ${format} client sets reaches ${upstream} or is named in a warning`, () => {
        fc.assert(
          fc.property(options, (o) => {
            const request = decode(o);
            // What a same-format upstream alone would take, for the translating path.
            delete request.forwardBody;
            expect(request.webSearch).toBeDefined();
            const body = encode(request);
            expect(offered(body)).toBe(true);
            const warnings = [...(request.warnings ?? []), ...(request.backendWarnings ?? [])].join('\n');
            for (const [key, wire] of WIRE) {
              if (request.webSearch![key] === undefined) continue;
              if (!reached(body, wire, request)) expect(warnings, `${wire} on ${upstream}`).toContain(wire);
            }
          }),
          { numRuns: 60 },
        );
      });
    }
  }

  it('each option a client sets is decoded, none lost on the way in', () => {
    fc.assert(
      fc.property(options, (o) => {
        const messages = CLIENTS.messages(o).webSearch!;
        if (o.allowedDomains) expect(messages.allowedDomains).toEqual(o.allowedDomains);
        if (o.blockedDomains) expect(messages.blockedDomains).toEqual(o.blockedDomains);
        if (o.maxUses !== undefined) expect(messages.maxUses).toBe(o.maxUses);
        const responses = CLIENTS.responses(o).webSearch!;
        if (o.contextSize) expect(responses.contextSize).toBe(o.contextSize);
        if (o.blockedDomains) expect(responses.blockedDomains).toEqual(o.blockedDomains);
        const chat = CLIENTS.chat(o).webSearch!;
        if (location(o.userLocation)) expect(chat.userLocation).toEqual(o.userLocation);
      }),
      { numRuns: 60 },
    );
  });
});
