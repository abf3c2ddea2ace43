import { describe, expect, it } from 'vitest';
import { anthropicAuth, FILES_API_BETA, messagesProtocolHeaders } from '../../src/backends/anthropic/upstream-headers.js';
import type { CanonicalRequest } from '../../src/core/request.js';
import { userRequest } from './translators/support.js';

const forwarded = (headers?: Record<string, string>): CanonicalRequest => ({
  ...userRequest('hi'),
  forwardBody: { format: 'messages', body: { model: 'm', max_tokens: 1, messages: [] }, ...(headers ? { headers } : {}) },
});

describe('anthropic protocol headers', () => {
  it("forwarded: the client's version and betas; the pinned version over the client's", () => {
    const client = { 'anthropic-version': '2026-10-21', 'anthropic-beta': 'a-2025-01-01,b-2025-02-02' };
    expect(messagesProtocolHeaders({}, forwarded(client))).toEqual(client);
    expect(messagesProtocolHeaders({ anthropicVersion: '2024-01-01' }, forwarded(client))).toEqual({ ...client, 'anthropic-version': '2024-01-01' });
    // A client that sent none (a hand-made call): the version every Messages call must carry.
    expect(messagesProtocolHeaders({}, forwarded())).toEqual({ 'anthropic-version': '2023-06-01' });
  });

  it("translated: 2023-06-01 (or the pin), no client betas, and the Files API's beta for an Anthropic file", () => {
    expect(messagesProtocolHeaders({}, userRequest('hi'))).toEqual({ 'anthropic-version': '2023-06-01' });
    expect(messagesProtocolHeaders({ anthropicVersion: '2026-10-21' }, userRequest('hi'))).toEqual({ 'anthropic-version': '2026-10-21' });
    const withFile: CanonicalRequest = { ...userRequest('hi'), messages: [{ role: 'user', content: [{ type: 'file', source: { kind: 'file-id', id: 'file_1', provider: 'anthropic' } }] }] };
    expect(messagesProtocolHeaders({}, withFile)).toEqual({ 'anthropic-version': '2023-06-01', 'anthropic-beta': FILES_API_BETA });
    // A Chat client's headers never reach an Anthropic upstream, even should a body of another format carry some.
    const chat: CanonicalRequest = { ...userRequest('hi'), forwardBody: { format: 'chat', body: {}, headers: { 'anthropic-beta': 'x' } } };
    expect(messagesProtocolHeaders({}, chat)).toEqual({ 'anthropic-version': '2023-06-01' });
  });

  it('auth: exactly one form, and none without a key', () => {
    expect(anthropicAuth({}, 'k')).toEqual({ 'x-api-key': 'k' });
    expect(anthropicAuth({ auth: 'x-api-key' }, 'k')).toEqual({ 'x-api-key': 'k' });
    expect(anthropicAuth({ auth: 'bearer' }, 'k')).toEqual({ authorization: 'Bearer k' });
    expect(anthropicAuth({ auth: 'bearer' }, undefined)).toEqual({});
  });
});
