import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { CHAT_BODY, MESSAGES_BODY, RESPONSES_BODY, rawExchange, type RawReply } from './http-support.js';

/**
 * Whitespace in a key is a cause of 401 (the spec), wherever the router can see it. The bytes are
 * written on a raw socket, so the header holds exactly what a careless client would send:
 *
 * - a space or tab at either end of a header value is not part of the value (RFC 9110 §5.5):
 *   Node removes it before the router sees the request, so the key is accepted;
 * - a carriage return, newline or other control character in a header line is refused by HTTP:
 *   401 when it is the key's header, in the endpoint's error shape;
 * - everything else reaches the router and is refused with 401 saying why: any other Unicode
 *   space (raw, as UTF-8 or Latin-1 bytes), white space inside the key or between `Bearer` and
 *   it, and white space written out as an escape (`\n`, `\u00a0`) or percent-encoded (`%20`).
 */

let router: TestRouter;
beforeAll(async () => {
  router = await startRouter();
});
afterAll(() => router.close());

const ENDPOINTS = [
  { method: 'POST', path: '/v1/chat/completions', body: CHAT_BODY, anthropic: false },
  { method: 'POST', path: '/v1/responses', body: RESPONSES_BODY, anthropic: false },
  { method: 'POST', path: '/v1/messages', body: MESSAGES_BODY, anthropic: true },
  { method: 'GET', path: '/v1/models', body: undefined, anthropic: false },
  { method: 'GET', path: '/whoami', body: undefined, anthropic: false },
] as const;
type Endpoint = (typeof ENDPOINTS)[number];

/** A request as raw bytes: the key header's value exactly as given, then the rest. */
function rawRequest(endpoint: Endpoint, keyHeader: Buffer): Buffer {
  const body = endpoint.body === undefined ? '' : JSON.stringify(endpoint.body);
  const head = [
    `${endpoint.method} ${endpoint.path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: close',
    ...(endpoint.anthropic ? ['anthropic-version: 2023-06-01'] : []),
    ...(body ? ['content-type: application/json', `content-length: ${Buffer.byteLength(body)}`] : []),
  ].join('\r\n');
  return Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), keyHeader, Buffer.from(`\r\n\r\n${body}`, 'latin1')]);
}

/** The endpoint's own error shape, with the message. */
function errorMessage(endpoint: Endpoint, reply: RawReply): string {
  const json = JSON.parse(reply.body);
  if (endpoint.anthropic) {
    expect(json).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect(json.request_id).toMatch(/^req_/);
  } else {
    expect(json).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key', param: null } });
  }
  return json.error.message as string;
}

/** White space a paste, a file or a template can bring along with a key. */
const WHITESPACE = [' ', '\t', '\n', '\r', '\v', '\f', '\u0085', '\u00a0', '\u2009', '\u3000', '\u2028', '\u200b', '\ufeff'];
/** What HTTP allows around a value and removes: SP and HTAB (OWS). */
const OPTIONAL_WHITESPACE = new Set([' ', '\t']);
/** Bytes HTTP does not allow in a header line at all. */
const CONTROL = new Set(['\n', '\r', '\v', '\f']);

type Encoding = 'utf8' | 'latin1' | 'percent' | 'backslash';
type Position = 'leading' | 'trailing' | 'inner' | 'after-scheme';

const hex = (char: string, width: number) => char.codePointAt(0)!.toString(16).padStart(width, '0');
const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\f': '\\f', '\v': '\\v' };

function encode(char: string, encoding: Encoding): Buffer {
  switch (encoding) {
    case 'utf8':
      return Buffer.from(char, 'utf8');
    case 'latin1':
      return Buffer.from(char, 'latin1');
    case 'percent':
      return Buffer.from(encodeURIComponent(char), 'latin1');
    case 'backslash':
      return Buffer.from(SHORT_ESCAPES[char] ?? `\\u${hex(char, 4)}`, 'latin1');
  }
}

/**
 * What the router must answer for this whitespace, so encoded and placed. Before `Bearer` (the
 * value's start on authorization) it is no key at all: a 401, with no hint to give.
 */
function expected(char: string, encoding: Encoding, position: Position, header: string): 'accepted' | 'http-refuses' | 'whitespace' | 'escaped' | 'invalid' {
  const bytes = encode(char, encoding);
  const raw = encoding === 'utf8' || encoding === 'latin1';
  if (raw && (position === 'leading' || position === 'trailing') && bytes.every((byte) => OPTIONAL_WHITESPACE.has(String.fromCharCode(byte)))) return 'accepted';
  if (raw && [...bytes].some((byte) => CONTROL.has(String.fromCharCode(byte)))) return 'http-refuses';
  if (position === 'leading' && header === 'authorization') return 'invalid';
  return raw ? 'whitespace' : 'escaped';
}

const scenario = fc.record({
  endpoint: fc.constantFrom(...ENDPOINTS),
  header: fc.constantFrom('authorization', 'x-api-key'),
  char: fc.constantFrom(...WHITESPACE),
  encoding: fc.constantFrom<Encoding>('utf8', 'latin1', 'percent', 'backslash'),
  position: fc.constantFrom<Position>('leading', 'trailing', 'inner', 'after-scheme'),
  repeat: fc.integer({ min: 1, max: 2 }),
});

describe('whitespace in a key, on every endpoint, in either header', () => {
  it('is removed by HTTP only at the ends of a value (space, tab); anything else is a 401 that says why', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ endpoint, header, char, encoding, position, repeat }) => {
        // Latin-1 holds only the first 256 code points; `after-scheme` needs a scheme.
        fc.pre(!(encoding === 'latin1' && char.codePointAt(0)! > 0xff));
        fc.pre(!(position === 'after-scheme' && header === 'x-api-key'));
        const white = Buffer.concat(Array.from({ length: repeat }, () => encode(char, encoding)));
        const key = Buffer.from(router.key, 'latin1');
        const split = `svc_alice_`.length + 8;
        const value =
          position === 'leading' || position === 'after-scheme'
            ? Buffer.concat([white, key])
            : position === 'trailing'
              ? Buffer.concat([key, white])
              : Buffer.concat([key.subarray(0, split), white, key.subarray(split)]);
        const line =
          header === 'authorization'
            ? position === 'leading'
              ? Buffer.concat([Buffer.from('authorization: ', 'latin1'), value.subarray(0, white.length), Buffer.from('Bearer ', 'latin1'), key])
              : Buffer.concat([Buffer.from('authorization: Bearer ', 'latin1'), value])
            : Buffer.concat([Buffer.from('x-api-key: ', 'latin1'), value]);
        const reply = await rawExchange(router, rawRequest(endpoint, line));
        const outcome = expected(char, encoding, position, header);
        if (outcome === 'accepted') {
          expect(reply.status, reply.head).toBe(200);
          return;
        }
        expect(reply.status, `${JSON.stringify(line.toString('latin1'))}\n${reply.head}\n${reply.body}`).toBe(401);
        const message = errorMessage(endpoint, reply);
        if (outcome === 'http-refuses') expect(message).toMatch(new RegExp(`the ${header} header holds a character HTTP does not allow`));
        else if (outcome === 'escaped') expect(message).toMatch(/whitespace written out as an escape/);
        else if (outcome === 'whitespace') expect(message).toMatch(/it contains whitespace/);
        else expect(message).toMatch(/^Invalid API key/);
        if (outcome !== 'invalid') expect(message).toMatch(/no trailing whitespace/);
        expect(reply.head + reply.body).not.toContain(router.key.slice(-24));
      }),
      { numRuns: 400 },
    );
  });

  it('the same raw requests with the key alone succeed, so the raw client is sound', async () => {
    for (const endpoint of ENDPOINTS) {
      for (const line of [`authorization: Bearer ${router.key}`, `x-api-key: ${router.key}`]) {
        const reply = await rawExchange(router, rawRequest(endpoint, Buffer.from(line, 'latin1')));
        expect(reply.status, `${endpoint.path}: ${reply.body}`).toBe(200);
      }
    }
  });

  it('a wrong key with whitespace gets the plain invalid-key message, so the hint never tells a key exists', async () => {
    const forged = `svc_alice_${'A'.repeat(32)}`;
    for (const suffix of ['\u00a0', '%20', '\\n']) {
      const reply = await rawExchange(router, rawRequest(ENDPOINTS[4], Buffer.from(`authorization: Bearer ${forged}${suffix}`, 'latin1')));
      expect(reply.status).toBe(401);
      expect(JSON.parse(reply.body).error.message).toMatch(/^Invalid API key\. Check the key/);
    }
  });
});

describe('a header line HTTP refuses, other than the key', () => {
  it('is a 400 in the endpoint\'s shape, naming the header and never its value', async () => {
    const secret = 'team-value-that-must-not-be-echoed';
    for (const endpoint of ENDPOINTS) {
      const line = Buffer.concat([Buffer.from(`x-api-key: ${router.key}\r\nx-team: ${secret}`, 'latin1'), Buffer.from([0x0b])]);
      const reply = await rawExchange(router, rawRequest(endpoint, line));
      expect(reply.status, reply.head).toBe(400);
      const json = JSON.parse(reply.body);
      expect(json.error.type).toBe('invalid_request_error');
      if (endpoint.anthropic) expect(json.type).toBe('error');
      expect(json.error.message).toMatch(/the x-team header holds a character HTTP does not allow/);
      expect(reply.body).not.toContain(secret);
      expect(reply.body).not.toContain(router.key);
    }
  });

  it('leaves Node\'s own answers to other parse failures as they were: 431 for headers too large', async () => {
    const reply = await rawExchange(router, rawRequest(ENDPOINTS[4], Buffer.from(`x-api-key: ${router.key}\r\nx-big: ${'a'.repeat(20 * 1024)}`, 'latin1')));
    expect(reply.status).toBe(431);
  });
});
