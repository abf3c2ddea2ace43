import { describe, expect, it } from 'vitest';
import { networkError, upstreamError } from '../../src/backends/http/upstream-error.js';
import { RouterError, invalidRequest, toRouterError } from '../../src/core/errors.js';
import { redactError } from '../../src/core/redact.js';
import { FORMATS } from '../../src/formats/registry.js';
import { describeCause, formatJson, redactEntry } from '../../src/server/request-log.js';

const SECRET = 'sk-ant-api03-Zx9Cv8Bn7Mq6Wl5Ek4Rj3Th2Yg1';

describe('RouterError.retryable', () => {
  it('is decided by the status unless the site says otherwise', () => {
    expect(new RouterError(429, 'rate_limit', 'slow down').retryable).toBe(true);
    expect(new RouterError(502, 'upstream', 'down').retryable).toBe(true);
    expect(new RouterError(503, 'overloaded', 'busy').retryable).toBe(true);
    expect(invalidRequest('bad').retryable).toBe(false);
    expect(new RouterError(413, 'too_large', 'big').retryable).toBe(false);
    expect(new RouterError(502, 'upstream', 'no', undefined, undefined, undefined, { retryable: false }).retryable).toBe(false);
    expect(new RouterError(400, 'invalid_request', 'yes', undefined, undefined, undefined, { retryable: true }).retryable).toBe(true);
  });

  it('lets a refused backend key or a missing model fall through, and never a request the upstream rejected', () => {
    const retryable = (status: number) => upstreamError('b', status, 'why', []).retryable;
    expect([401, 403, 404, 429, 500, 502, 503, 529].map(retryable)).toEqual(Array(8).fill(true));
    expect([400, 413, 422].map(retryable)).toEqual([false, false, false]);
  });

  it('never retries a client that went away', () => {
    const gone = { aborted: true } as Parameters<typeof networkError>[2];
    expect(networkError('b', new Error('aborted'), gone).retryable).toBe(false);
  });

  it('survives redaction with its cause', () => {
    const error = new RouterError(400, 'invalid_request', `bad key ${SECRET}`, undefined, undefined, undefined, { cause: 'under', retryable: true });
    const redacted = redactError(error);
    expect(redacted).not.toBe(error);
    expect(redacted.message).not.toContain(SECRET);
    expect(redacted.retryable).toBe(true);
    expect(redacted.cause).toBe('under');
  });
});

describe('RouterError.cause', () => {
  it('holds the upstream words and the network failure', () => {
    expect(upstreamError('b', 401, 'no such key', []).cause).toBe('HTTP 401: no such key');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(networkError('b', refused).cause).toBe(refused);
    const thrown = new TypeError('x is undefined');
    expect(toRouterError(thrown).cause).toBe(thrown);
  });

  it('never reaches a client body, in any format', () => {
    const cause = new Error(`upstream said: token ${SECRET}`);
    const error = new RouterError(502, 'upstream', "Backend 'b' failed.", undefined, 'upstream_error', undefined, { cause });
    for (const format of FORMATS) {
      const body = JSON.stringify(format.errorBody(error, 'req_1'));
      expect(body).toContain("Backend 'b' failed.");
      expect(body).not.toContain('upstream said');
      expect(body).not.toContain(SECRET);
    }
  });

  it('reaches the log line described and redacted', () => {
    const cause = Object.assign(new Error('refused', { cause: new Error(`with key ${SECRET}`) }), { code: 'E_UP' });
    expect(describeCause(cause)).toBe(`Error E_UP: refused (cause: Error: with key ${SECRET})`);
    const line = formatJson(redactEntry({ time: 0, method: 'POST', path: '/v1/messages', status: 502, latencyMs: 1, error: 'failed', cause }));
    expect(JSON.parse(line).cause).toBe('Error E_UP: refused (cause: Error: with key [redacted])');
    expect(line).not.toContain(SECRET);
  });
});
