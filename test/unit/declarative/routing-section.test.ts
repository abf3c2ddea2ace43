import { describe, expect, it } from 'vitest';
import { declarativeSchema } from '../../../src/config/declarative/schema.js';

describe('the declarative file’s routing section', () => {
  it('takes a header name for the session header, and refuses a credential header or anything that is no header name', () => {
    expect(declarativeSchema.safeParse({ routing: { sessionHeader: 'x-session-id' } }).success).toBe(true);
    for (const bad of ['Authorization', 'x-api-key', 'cookie', 'two words', '']) {
      expect(declarativeSchema.safeParse({ routing: { sessionHeader: bad } }).success, bad).toBe(false);
    }
    expect(declarativeSchema.safeParse({ routing: { stickiness: true } }).success).toBe(false);
  });
});
