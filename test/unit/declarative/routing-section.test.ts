import { describe, expect, it } from 'vitest';
import { declarativeSchema } from '../../../src/config/declarative/schema.js';
import { validateText } from '../../../src/config/declarative/validate.js';

describe('the declarative file’s routing section', () => {
  it('takes a header name for the session header, and refuses a credential header or anything that is no header name', () => {
    expect(declarativeSchema.safeParse({ routing: { sessionHeader: 'x-session-id' } }).success).toBe(true);
    for (const bad of ['Authorization', 'x-api-key', 'cookie', 'two words', '']) {
      expect(declarativeSchema.safeParse({ routing: { sessionHeader: bad } }).success, bad).toBe(false);
    }
    expect(declarativeSchema.safeParse({ routing: { stickiness: true } }).success).toBe(false);
  });

  it("takes a route's search target, and names an unknown backend in it", () => {
    const backends = { gem: { type: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com/v1beta' } };
    const good = validateText(JSON.stringify({ backends, routePolicies: { 'svc.intelligent-pro': { search: 'gem:gemini-2.5-flash' } } }), { env: {} });
    expect(good.problems).toEqual([]);
    expect(good.config!.routePolicies!['svc.intelligent-pro']!.search).toBe('gem:gemini-2.5-flash');
    const bad = validateText(JSON.stringify({ backends, routePolicies: { 'svc.intelligent-pro': { search: 'gemm:x' } } }), { env: {} });
    expect(bad.problems.map((problem) => problem.message)).toEqual([expect.stringContaining('unknown backend "gemm"')]);
    expect(declarativeSchema.safeParse({ routePolicies: { 'svc.intelligent-pro': { search: '' } } }).success).toBe(false);
  });
});
