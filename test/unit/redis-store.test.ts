import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayRedisStore, parseRedisStore, redactRedisStores } from '../../src/core/redis-store.js';
import { usageStoreProblem } from '../../src/usage/open-ledger.js';

describe('a redis-sentinel:// usage store', () => {
  it('names the sentinels, the master, the database and the password, as redis+sentinel:// does', () => {
    for (const scheme of ['redis-sentinel', 'redis+sentinel', 'REDIS-SENTINEL']) {
      expect(parseRedisStore(`${scheme}://:s3cret@10.0.0.1:26379,10.0.0.2:26380,sentinel-c/main?db=2`)).toEqual({
        kind: 'sentinel',
        sentinels: [
          { host: '10.0.0.1', port: 26379 },
          { host: '10.0.0.2', port: 26380 },
          { host: 'sentinel-c', port: 26379 },
        ],
        name: 'main',
        db: 2,
        password: 's3cret',
      });
    }
    expect(parseRedisStore('redis-sentinel://ops:dummy%40pw@[::1]:5000/my%20master/3')).toEqual({
      kind: 'sentinel',
      sentinels: [{ host: '::1', port: 5000 }],
      name: 'my master',
      db: 3,
      username: 'ops',
      password: 'dummy@pw',
    });
    expect(parseRedisStore('redis://127.0.0.1:6379')).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379' });
  });

  it.each([
    ['redis-sentinel://host:26379', /no master name/],
    ['redis-sentinel:///main', /not HOST or HOST:PORT/],
    ['redis-sentinel://a:1,,b:2/main', /'' is not HOST/],
    ['redis-sentinel://a:99999/main', /'a:99999' is not HOST/],
    ['redis-sentinel://a/main?db=x', /db must be a whole number/],
    ['redis-sentinel://a/main/1/2', /the path is/],
    ['redis-sentinel://a/main?timeout=5', /unknown option 'timeout'/],
    ['redis://', /expected redis:\/\/HOST:PORT/],
    ['memcached://a', /expected 'file', redis/],
  ])('refuses %s with a message that says what is wrong', (store, message) => {
    expect(usageStoreProblem(store)).toMatch(message);
  });

  it('never shows a password: not in a display, not in an error, not in a command line', () => {
    // Passwords as people write them, unescaped '@', '/', ':' and '?' included.
    const password = fc.string({ minLength: 4, maxLength: 24, unit: fc.constantFrom(...'abcXYZ019@/:?#%!,.') }).filter((text) => /[a-zA-Z0-9]{4}/.test(text));
    fc.assert(
      fc.property(password, fc.constantFrom('redis', 'rediss', 'redis-sentinel', 'redis+sentinel', 'redis-sentinl'), fc.constantFrom('', 'ops'), (secret, scheme, user) => {
        const store = `${scheme}://${user}:${secret}@s1:26379,s2:26379/main`;
        const secretCore = /[a-zA-Z0-9]{4}/.exec(secret)![0];
        expect(displayRedisStore(store)).not.toContain(secretCore);
        expect(redactRedisStores(`svc-router serve --usage-store=${store} --port 1`)).not.toContain(secretCore);
        expect(usageStoreProblem(`${store}?nope=1`) ?? '').not.toContain(secretCore);
      }),
    );
    expect(displayRedisStore('redis-sentinel://:pw@s1,s2/main')).toBe('redis-sentinel://:***@s1,s2/main');
    expect(displayRedisStore('file')).toBe('file');
  });
});
