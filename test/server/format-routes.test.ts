import { describe, expect, it } from 'vitest';
import { RouterError } from '../../src/core/errors.js';
import { FORMATS } from '../../src/formats/registry.js';
import { authenticate, presentedKey } from '../../src/identity/authenticate.js';
import { buildRouteTable, ENDPOINTS, findEndpoint, likelyEndpoint, type Endpoint } from '../../src/server/endpoints.js';

describe('the route table built from the formats registry', () => {
  it('serves every route of every format, with that format', () => {
    for (const format of FORMATS) {
      for (const route of format.routes) {
        const found = findEndpoint(route.path);
        expect(found?.key, route.path).toBe(route.path);
        expect(found?.endpoint.format).toBe(format);
        expect(found?.endpoint.name).toBe(route.name ?? format.name);
        expect(found?.endpoint.method).toBe(route.method);
      }
    }
  });

  it('lists the shared endpoints first, then each format in registry order', () => {
    const formatPaths = FORMATS.flatMap((format) => format.routes.map((route) => route.path));
    expect(Object.keys(ENDPOINTS)).toEqual(['/whoami', '/v1/models', '/v1/models/{id}', '/admin/usage', '/admin/sessions', ...formatPaths]);
  });

  it('matches a {param} segment and hands its value on', () => {
    const found = findEndpoint('/v1/models/svc.intelligent-pro');
    expect(found?.key).toBe('/v1/models/{id}');
    expect({ ...found?.params }).toEqual({ id: 'svc.intelligent-pro' });
    expect(findEndpoint('/v1/models/a/b')).toBeUndefined();
    expect(findEndpoint('/v1/models/')).toBeUndefined();
  });

  it('matches the most specific pattern, whatever order the patterns were listed in', () => {
    const endpoint = (name: string) => ({ ...ENDPOINTS['/v1/models/{id}']!, name }) as Endpoint;
    const patterns = ['/v1/models/{id}', '/v1/models/{model}:countTokens', '/v1/models/{model}:generateContent', '/{a}/models/{b}'];
    // Every order of the same patterns finds the same endpoint for each path.
    const orders = [patterns, [...patterns].reverse(), [patterns[2]!, patterns[0]!, patterns[3]!, patterns[1]!]];
    for (const order of orders) {
      const table = buildRouteTable(order.map((path) => [path, endpoint(path)] as const));
      expect(findEndpoint('/v1/models/gemini-2.5-pro:countTokens', table)?.key, order.join(' ')).toBe('/v1/models/{model}:countTokens');
      expect({ ...findEndpoint('/v1/models/svc.x:generateContent', table)?.params }).toEqual({ model: 'svc.x' });
      expect(findEndpoint('/v1/models/svc.x', table)?.key).toBe('/v1/models/{id}');
      expect(findEndpoint('/v2/models/svc.x', table)?.key).toBe('/{a}/models/{b}');
    }
  });

  it('finds nothing for names on every object\'s prototype', () => {
    for (const path of ['constructor', '__proto__', 'toString', 'hasOwnProperty', '/constructor', '/__proto__']) expect(findEndpoint(path), path).toBeUndefined();
    expect(Object.getPrototypeOf(findEndpoint('/v1/models/x')!.params)).toBeNull();
  });

  it('answers an unmatched path in the format it was probably meant for', () => {
    expect(likelyEndpoint('/messages')?.format.name).toBe('messages');
    expect(likelyEndpoint('/v1/v1/messages')?.format.name).toBe('messages');
    expect(likelyEndpoint('/v1/messages/batches')?.format.name).toBe('messages');
    expect(likelyEndpoint('/chat/completions')?.format.name).toBe('chat');
    expect(likelyEndpoint('/nothing/here')).toBeUndefined();
  });

  it("renders an endpoint's errors with its format's errorBody", () => {
    const error = new RouterError(400, 'invalid_request', 'nope');
    for (const [path, endpoint] of Object.entries(ENDPOINTS)) {
      expect(endpoint.errorBody(error, 'req_1'), path).toEqual(endpoint.format.errorBody(error, 'req_1'));
    }
    expect(ENDPOINTS['/v1/messages']!.errorBody(error, 'req_1')).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(ENDPOINTS['/v1/chat/completions']!.errorBody(error, 'req_1')).toMatchObject({ error: { type: 'invalid_request_error', message: 'nope' } });
  });
});

describe('presentedKey', () => {
  const sources = [{ header: 'x-api-key' }, { header: 'authorization', scheme: 'bearer' }] as const;

  it('reads the sources in order', () => {
    expect(presentedKey({ 'x-api-key': 'a', authorization: 'Bearer b' }, sources)).toBe('a');
    expect(presentedKey({ authorization: 'Bearer b' }, sources)).toBe('b');
    expect(presentedKey({ authorization: 'Bearer b' }, [...sources].reverse())).toBe('b');
    expect(presentedKey({}, sources)).toBeUndefined();
  });

  it('drops the scheme in any case, and keeps everything after its single space', () => {
    expect(presentedKey({ authorization: 'bEaReR k' }, sources)).toBe('k');
    expect(presentedKey({ authorization: 'Bearer  k' }, sources)).toBe(' k');
    expect(presentedKey({ authorization: 'k' }, sources)).toBe('k');
    expect(presentedKey({ authorization: 'Bearer' }, sources)).toBe('Bearer');
  });
});

describe('a key in the query string', () => {
  const sources = [{ header: 'x-goog-api-key' }, { query: 'key' }, { header: 'authorization', scheme: 'bearer' }] as const;

  it('is read only where a source names the parameter, in the sources\' order, percent-decoded', () => {
    expect(presentedKey({}, sources, 'alt=sse&key=svc_a%2Bb')).toBe('svc_a+b');
    expect(presentedKey({ 'x-goog-api-key': 'h' }, sources, 'key=q')).toBe('h');
    expect(presentedKey({ authorization: 'Bearer b' }, sources, 'key=q')).toBe('q');
    expect(presentedKey({ authorization: 'Bearer b' }, sources, 'alt=sse')).toBe('b');
    expect(presentedKey({}, [{ header: 'x-api-key' }], 'key=q')).toBeUndefined();
    expect(presentedKey({}, sources)).toBeUndefined();
  });

  it('is asked for, when missing, as the endpoint reads it', () => {
    const settings = { keys: {} } as never;
    expect(() => authenticate(settings, undefined, sources)).toThrow('Missing API key. Send it as "x-goog-api-key: <key>" (or "?key=<key>" in the URL, or "Authorization: Bearer <key>").');
    expect(() => authenticate(settings, '')).toThrow('Missing API key. Send it as "x-api-key: <key>" (or "Authorization: Bearer <key>").');
  });
});
