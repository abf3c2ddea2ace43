import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../../src/core/errors.js';
import { addSecretSource, redactError, redactPatterns, redactText, redactValue, rememberedSecrets } from '../../src/core/redact.js';
import { configuredSecrets } from '../../src/config/secrets.js';
import { withDefaults } from '../../src/config/settings.js';
import { formatJson, formatText, redactEntry } from '../../src/server/request-log.js';
import { Chalk } from 'chalk';

describe('redactText', () => {
  it.each([
    ['the configured key, anywhere', 'quota exceeded for abcdefgh12345678zz, sorry', ['abcdefgh12345678zz'], 'quota exceeded for [redacted], sorry'],
    ['a bearer credential', 'sent Authorization: Bearer eyzzzz0123456789abc', [], 'sent Authorization: Bearer [redacted]'],
    ['an x-api-key header', 'header x-api-key: 0123456789abcdef0123 was refused', [], 'header x-api-key: [redacted] was refused'],
    ['a JSON api_key field', '{"api_key":"a1b2c3d4e5f6g7h8"}', [], '{"api_key":"[redacted]"}'],
    ['an OpenAI project key', 'Incorrect API key provided: sk-proj-AbCdEf0123456789xyz.', [], 'Incorrect API key provided: [redacted].'],
    ['an Anthropic key', 'key sk-ant-api03-abcdefghijKLMNOP-qrstu_vwx', [], 'key [redacted]'],
    ['a Google key', 'API key AIzaSyA1234567890abcdefghijklmnopqrstuv not valid', [], 'API key [redacted] not valid'],
    ['a random token after "token"', 'token 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b rejected', [], 'token [redacted] rejected'],
    // Assembled when the test runs, so this file holds no credential for a scan of the sources to find.
    ['a Stripe key', `charge failed for sk_live_${'Tz8WmN2pLx7RbY4sJd6HKq3v'}`, [], 'charge failed for [redacted]'],
    [
      'a PEM private key',
      `cat id_rsa\n-----BEGIN OPENSSH ${'PRIVATE'} KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDvY2h1bmsgb2YgYSBrZXkgdGhhdCBpcyBub3QgcmVhbA==\n-----END OPENSSH ${'PRIVATE'} KEY-----\ndone`,
      [],
      'cat id_rsa\n[redacted]\ndone',
    ],
  ])('removes %s', (_, text, secrets, expected) => {
    expect(redactText(text, secrets)).toBe(expected);
  });

  it.each([
    "max_tokens must be at most 4096, got 10000",
    "The model `gpt-4o-mini-2024-07-18` does not exist or you do not have access to it.",
    "Invalid 'messages[0].content': expected a string, got an object.",
    'token limit exceeded: 200000 tokens requested',
    'the bearer of bad news; authorization required',
    'Invalid key: must be a string',
    'request req_01HZX8ABCDEF failed; task_123456789 queued; disk-00012345 full',
    'Overloaded',
  ])('leaves ordinary text alone: %s', (text) => {
    expect(redactText(text)).toBe(text);
  });

  // A client's model name or body reaches redaction whole: each prefix of a run must not make it read the rest of the run.
  it.each(['eyJ-', 'sk-', 'pk_x-', 'key-', 'Bearer '])('reads a megabyte of %j strung together once', (unit) => {
    const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
    expect(redactText(text).length).toBeGreaterThan(0);
  });

  it('cuts only after redacting, so a key across the cut leaves nothing behind', () => {
    const key = 'Zq8wX3vB7nM2kL9pR4tY6uI1oE5aS0dF';
    const text = `${'x'.repeat(490)}${key} more`;
    const clean = redactText(text, [key], 500);
    expect(clean).not.toContain(key.slice(0, 6));
    expect(clean.length).toBeLessThanOrEqual(501);
  });
});

describe("the router's own keys", () => {
  // As generateKey makes them: a slug, then base64url; some have no digit at all.
  const issuedKey = fc
    .tuple(fc.stringMatching(/^[a-z](?:[a-z0-9-]{0,10}[a-z0-9])?$/), fc.stringMatching(/^[A-Za-z0-9_-]{32,40}$/))
    .map(([slug, random]) => ({ key: `svc_${slug}_${random}`, random }));

  it('are redacted whatever their random part holds, letters only included', () => {
    fc.assert(
      fc.property(issuedKey, fc.constantFrom('', 'my key is ', 'Bearer ', '"', '/v1/'), ({ key, random }, before) => {
        const clean = redactText(`${before}${key} and more`);
        expect(clean).not.toContain(random);
      }),
      { numRuns: 2000 },
    );
    expect(redactText('svc_alice_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh')).toBe('[redacted]');
  });
});

/** Pieces the credential patterns look for, in any case, among words, separators and random runs. */
const WORDS = ['Bearer', 'Basic', 'Token', 'key', 'keys', 'api_key', 'x-api-key', 'x-goog-api-key', 'apikey', 'access-token', 'auth_token', 'refresh_token', 'client-secret', 'authorization', 'password', 'passwd', 'secret', 'credentials', 'tokens'];
const SEPARATORS = [' ', '-', '_', ':', '=', '"', "'", ': ', '="', ',', '.', '\n'];
const SHAPES = ['sk-', 'svc_', 'pk_', 'rk-', 'sk-ant-', 'AIza', 'AKIA', 'ASIA', 'ghp_', 'github_pat_', 'xoxb-', 'hf_', 'gsk_', 'xai-', 'pplx-', 'r8_', 'eyJ'];
// Runs without k, p, r or s, so a hint word in the text is mostly the piece's own.
const run = fc.stringMatching(/^[A-HJ-NQT-Za-hj-nqt-z0-9_+\/=.-]{1,40}$/);
const alnumRun = fc.stringMatching(/^[A-HJ-NQT-Za-hj-nqt-z0-9]{16,40}$/);
const piece = fc.oneof(
  fc.constantFrom(...WORDS, ...SHAPES, ...SEPARATORS),
  run,
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  // A credential named by a word: the word, a separator, a value.
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS), fc.oneof(run, alnumRun)).map((parts) => parts.join('')) },
  // A well-known key shape whole: its prefix, then a run long enough to match.
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...SHAPES), fc.stringMatching(/^[A-Z0-9]{32,40}$/)).map(([prefix, body]) => (prefix === 'eyJ' ? `eyJ${body}.eyJ${body}.${body}` : prefix + body)) },
);
const text = fc.oneof(
  fc.array(piece, { minLength: 1, maxLength: 4 }).chain((pieces) => fc.constantFrom(pieces.join(' '), pieces.join(''), pieces.join(' ').toUpperCase(), pieces.join(' ').toLowerCase())),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

describe('redactText runs the patterns only where a word they need appears', () => {
  it('and gives what the patterns alone would give, for any text', () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(redactText(value)).toBe(redactPatterns(value));
      }),
      { numRuns: 5000 },
    );
  });

  it('and so for every credential word and key shape alone, among plain words', () => {
    const lone = fc.oneof(
      fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS), fc.oneof(run, alnumRun)).map((parts) => parts.join('')),
      fc.tuple(fc.constantFrom(...SHAPES), fc.stringMatching(/^[A-Z0-9]{32,40}$/)).map(([prefix, body]) => prefix + body),
    );
    fc.assert(
      fc.property(run, lone, run, (before, credential, after) => {
        const value = `${before} ${credential} ${after}`;
        expect(redactText(value)).toBe(redactPatterns(value));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('redactError and redactValue', () => {
  it('redacts message, param and code, keeping status, kind and retry-after', () => {
    const error = new RouterError(503, 'overloaded', 'busy for secret-key-1234', 'secret-key-1234', 'secret-key-1234', 2000);
    const clean = redactError(error, ['secret-key-1234']);
    expect(clean).toMatchObject({ status: 503, kind: 'overloaded', message: 'busy for [redacted]', param: '[redacted]', code: '[redacted]', retryAfterMs: 2000 });
  });

  it('walks a JSON body, leaving untouched values as they are', () => {
    const body = { error: { message: 'bad Bearer abcdefgh12345678' }, list: ['ok', 'sk-abcdef1234567890'], n: 1 };
    expect(redactValue(body)).toEqual({ error: { message: 'bad Bearer [redacted]' }, list: ['ok', '[redacted]'], n: 1 });
    const clean = { a: 'fine', b: [1, 2] };
    expect(redactValue(clean)).toBe(clean);
  });

  it('keeps a client key named __proto__ as a key of the redacted copy', () => {
    const body = JSON.parse('{"__proto__": {"x": "sk-abcdef1234567890"}, "y": "Bearer abcdefgh12345678"}');
    const clean = redactValue(body) as Record<string, unknown>;
    expect(Object.getPrototypeOf(clean)).toBe(Object.prototype);
    expect(Object.hasOwn(clean, '__proto__')).toBe(true);
    expect(JSON.stringify(clean)).toBe('{"__proto__":{"x":"[redacted]"},"y":"Bearer [redacted]"}');
  });
});

describe('the request log as a second line of defence', () => {
  it('scrubs error text and bodies in both formats', () => {
    const entry = {
      time: 0,
      method: 'POST',
      path: '/v1/chat/completions',
      status: 502,
      latencyMs: 1,
      error: 'failed: quota for upstream-secret-0001',
      requestBody: { messages: [{ role: 'user', content: 'my key is sk-proj-abcdefghij0123456789' }] },
      responseBody: { error: { message: 'x-api-key: upstream-secret-0001' } },
    };
    const clean = redactEntry(entry, ['upstream-secret-0001']);
    for (const line of [formatJson(clean), formatText(clean, new Chalk({ level: 0 }))]) {
      expect(line).not.toContain('upstream-secret-0001');
      expect(line).not.toContain('sk-proj-abcdefghij0123456789');
      expect(line).toContain('[redacted]');
    }
  });
});

describe('the request log scrubs the client\'s own words too', () => {
  it('a key in the path or the model name', () => {
    const key = 'svc_bob_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh';
    const entry = { time: 0, method: 'GET', path: `/v1/${key}/chat/completions`, status: 404, latencyMs: 1, model: 'sk-proj-abcdefghij0123456789' };
    const clean = redactEntry(entry, []);
    for (const line of [formatJson(clean), formatText(clean, new Chalk({ level: 0 }))]) {
      expect(line).not.toContain(key);
      expect(line).not.toContain('sk-proj-abcdefghij0123456789');
      expect(line).toContain('/v1/[redacted]/chat/completions');
    }
  });

  it('leaves an entry with nothing to scrub as it is', () => {
    const entry = { time: 0, method: 'POST', path: '/v1/chat/completions', status: 200, latencyMs: 1, model: 'svc.intelligent-pro' };
    expect(redactEntry(entry, ['upstream-secret-0001'])).toBe(entry);
  });

  it('reads the secrets given once, however many fields it scrubs', () => {
    const secret = 'upstream-secret-000000001';
    const once = function* () {
      yield secret;
    };
    const clean = redactEntry({ time: 0, method: 'POST', path: '/v1/chat/completions', status: 502, latencyMs: 1, error: `bad ${secret}`, requestBody: { text: secret } }, once());
    expect(JSON.stringify(clean)).not.toContain(secret);
  });
});

describe('secrets the settings hold are scrubbed before any call sends them', () => {
  const settings = withDefaults({
    localKey: 'svc_alice_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh',
    backends: {
      spare: { type: 'openai-chat', baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'spare0000key0000never0000sent' },
      pooled: { type: 'anthropic', baseUrl: 'http://127.0.0.1:1', apiKeyEnv: 'SVC_TEST_POOLED_ENV', keyPool: { strategy: 'round-robin', keys: [{ apiKey: 'pool0000key0000number0000one' }, { apiKeyEnv: 'SVC_TEST_POOLED_ENV' }] } },
      gateway: { type: 'openai-chat', baseUrl: 'http://127.0.0.1:1/v1', headers: { 'x-gateway-token': 'Bearer gateway0000token0000value', 'x-team': 'platform' } },
    },
  });

  it('lists the local key, every backend key (stored, pooled, from the environment) and credential headers', () => {
    process.env.SVC_TEST_POOLED_ENV = 'env0000key0000read0000at0000call';
    try {
      const secrets = configuredSecrets(withDefaults(structuredClone(settings)));
      for (const expected of ['svc_alice_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh', 'spare0000key0000never0000sent', 'pool0000key0000number0000one', 'env0000key0000read0000at0000call', 'gateway0000token0000value']) {
        expect(secrets).toContain(expected);
      }
      expect(secrets).not.toContain('platform');
    } finally {
      delete process.env.SVC_TEST_POOLED_ENV;
    }
  });

  it('are among the remembered secrets while their source is open, and only then', () => {
    const forget = addSecretSource(() => configuredSecrets(settings));
    expect(rememberedSecrets()).toContain('spare0000key0000never0000sent');
    forget();
    expect(rememberedSecrets()).not.toContain('spare0000key0000never0000sent');
  });
});
