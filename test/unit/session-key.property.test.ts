import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../src/core/request.js';
import { AGENT_SESSION_HEADERS, MAX_SESSION_ID_CHARS, sessionOf } from '../../src/routing/session-key.js';

const request = (fields: Partial<CanonicalRequest> = {}): CanonicalRequest => ({ model: 'svc.intelligent-pro', system: [], messages: [], tools: [], ...fields });
const chatBody = (body: Record<string, unknown>) => request({ forwardBody: { format: 'chat', body } });
/** A Messages request as its decoder leaves it: metadata.user_id is the session its body names. */
const messagesWith = (userId: string) => request({ metadata: { user_id: userId }, sessionName: userId, forwardBody: { format: 'messages', body: { metadata: { user_id: userId } } } });

/** Each place a session is named, in the order read: a request naming it in several is keyed by the first. */
const SOURCES = [
  { label: 'the configured header', headers: { 'x-team-session': 'S' }, request: request() },
  { label: 'x-claude-code-session-id', headers: { 'x-claude-code-session-id': 'S' }, request: request() },
  { label: "Codex's session-id", headers: { 'session-id': 'S' }, request: request() },
  { label: "Codex's session_id (earlier releases)", headers: { session_id: 'S' }, request: request() },
  { label: "Codex's conversation_id (earlier releases)", headers: { conversation_id: 'S' }, request: request() },
  { label: 'prompt_cache_key', headers: {}, request: chatBody({ prompt_cache_key: 'S' }) },
  { label: 'metadata.user_id on Messages', headers: {}, request: messagesWith('S') },
  { label: "a Gemini conversation's opening (the session its decoder names)", headers: {}, request: request({ sessionName: 'S' }) },
];

describe('what names a session', () => {
  it.each(SOURCES)('reads $label', ({ headers, request }) => {
    const session = sessionOf(headers, request, 'alice', 'x-team-session');
    expect(session).toBeDefined();
    // The same id from any source is the same session: the hash is of the caller and the id.
    expect(session!.id).toBe(sessionOf({ 'x-claude-code-session-id': 'S' }, request, 'alice', undefined)!.id);
  });

  it('takes the first source in order when a request names several', () => {
    const idOf = (named: string) => sessionOf({ 'x-claude-code-session-id': named }, request(), 'alice', undefined)!.id;
    const headerSources = SOURCES.slice(0, 5);
    fc.assert(
      fc.property(
        fc.subarray(headerSources.map((_, index) => index)),
        fc.constantFrom('none', 'prompt_cache_key', 'metadata.user_id'),
        (chosen, bodySource) => {
          // Header source i names session `s<i>`; the body names `body` (prompt_cache_key is Chat's, metadata.user_id Messages').
          const headers = Object.fromEntries(chosen.flatMap((index) => Object.keys(headerSources[index]!.headers).map((name) => [name, `s${index}`])));
          const body = bodySource === 'prompt_cache_key' ? chatBody({ prompt_cache_key: 'body' }) : bodySource === 'metadata.user_id' ? messagesWith('body') : request();
          const expected = chosen.length ? `s${Math.min(...chosen)}` : bodySource === 'none' ? undefined : 'body';
          expect(sessionOf(headers, body, 'alice', 'x-team-session')?.id).toBe(expected === undefined ? undefined : idOf(expected));
        },
      ),
    );
  });

  it('reads metadata.user_id only on Messages (on Chat and Responses `user` names an end user, not a session)', () => {
    expect(sessionOf({}, request({ metadata: { user_id: 'u' }, forwardBody: { format: 'chat', body: { user: 'u' } } }), 'alice', undefined)).toBeUndefined();
  });

  it('routes a request naming no session, or one too long to be one, as before: no session', () => {
    expect(sessionOf({}, request(), 'alice', undefined)).toBeUndefined();
    expect(sessionOf({ 'x-claude-code-session-id': '' }, request(), 'alice', undefined)).toBeUndefined();
    expect(sessionOf({ 'x-claude-code-session-id': 'x'.repeat(MAX_SESSION_ID_CHARS + 1) }, request(), 'alice', undefined)).toBeUndefined();
    expect(sessionOf({ 'x-claude-code-session-id': 'x'.repeat(MAX_SESSION_ID_CHARS) }, request(), 'alice', undefined)).toBeDefined();
  });

  it('keys a session by its caller: one caller naming another’s session id gets a session of its own', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 64 }), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (id, a, b) => {
        fc.pre(a !== b);
        const headers = { [AGENT_SESSION_HEADERS[0]]: id };
        const mine = sessionOf(headers, request(), a, undefined)!;
        const theirs = sessionOf(headers, request(), b, undefined)!;
        expect(mine.id).not.toBe(theirs.id);
        expect(mine.cacheKey).not.toBe(theirs.cacheKey);
        // Stable: the same caller and id give the same session every time.
        expect(sessionOf(headers, request(), a, undefined)).toEqual(mine);
      }),
    );
  });

  it('never holds the client’s words: the id and the derived cache key are hashes, and not of each other', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8, maxLength: MAX_SESSION_ID_CHARS }), (id) => {
        const session = sessionOf({ 'x-claude-code-session-id': id }, request(), 'alice', undefined)!;
        expect(session.id).toMatch(/^[\w-]{22}$/);
        expect(session.cacheKey).toMatch(/^svc-[\w-]{21}$/);
        expect(session.id).not.toContain(id);
        expect(session.cacheKey).not.toContain(id);
        expect(session.cacheKey).not.toContain(session.id.slice(0, 8));
      }),
    );
  });

  it('sends the client’s own prompt_cache_key as the cache key, whatever names the session', () => {
    const fromBody = sessionOf({ 'session-id': 'S' }, chatBody({ prompt_cache_key: 'client-key' }), 'alice', undefined)!;
    expect(fromBody.cacheKey).toBe('client-key');
    const fromCanonical = sessionOf({}, request({ promptCacheKey: 'decoded-key' }), 'alice', undefined)!;
    expect(fromCanonical.cacheKey).toBe('decoded-key');
  });
});
