import { describe, expect, it } from 'vitest';
import { validateText } from '../../../src/config/declarative/validate.js';

/** A backend's provider profile and OpenRouter's provider routing, as the declarative file takes them. */
const file = (backend: Record<string, unknown>): string =>
  JSON.stringify({ backends: { up: { baseUrl: 'https://openrouter.ai/api/v1', apiKeyEnv: 'UP_KEY', ...backend } }, routes: { 'svc.intelligent-pro': ['up:model'] } }, null, 2);

describe('profile and providerRouting in the declarative file', () => {
  it('takes a known profile on an openai-chat backend, and OpenRouter routing with the openrouter profile', () => {
    const routing = { order: ['anthropic'], allow_fallbacks: false };
    expect(validateText(file({ type: 'openai-chat', profile: 'openrouter', providerRouting: routing }), { env: {} })).toMatchObject({
      problems: [],
      config: { backends: { up: { profile: 'openrouter', providerRouting: routing } } },
    });
  });

  it('names a profile on another type, an unknown profile, and routing without the openrouter profile', () => {
    expect(validateText(file({ type: 'anthropic', profile: 'deepseek' }), { env: {} }).problems).toEqual([
      expect.objectContaining({ path: ['backends', 'up', 'profile'], message: '"profile" is for openai-chat backends only' }),
    ]);
    expect(validateText(file({ type: 'openai-chat', profile: 'nonesuch' }), { env: {} }).problems).toEqual([expect.objectContaining({ path: ['backends', 'up', 'profile'] })]);
    expect(validateText(file({ type: 'openai-chat', profile: 'deepseek', providerRouting: { order: ['a'] } }), { env: {} }).problems).toEqual([
      expect.objectContaining({ path: ['backends', 'up', 'providerRouting'], message: 'provider routing is for openai-chat backends with profile openrouter only' }),
    ]);
  });
});
