import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backends/backend.js';
import { BackendRegistry } from '../../src/backends/backend-registry.js';
import { withDefaults } from '../../src/config/settings.js';

describe('backend registry wrap', () => {
  it('hands out what wrap returned, built once per backend and settings', async () => {
    const seen: string[] = [];
    const registry = new BackendRegistry({
      wrap: (backend): Backend => {
        seen.push(backend.name);
        return { ...backend, name: backend.name, wrapped: true } as Backend;
      },
    });
    const settings = withDefaults({ backends: { up: { type: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1' } } });
    const first = await registry.get('up', settings);
    expect((first as Backend & { wrapped?: boolean }).wrapped).toBe(true);
    expect(registry.get('up', settings)).toBe(first);
    expect((registry.get('offline', settings) as Backend & { wrapped?: boolean }).wrapped).toBe(true);
    expect(seen).toEqual(['offline', 'up']);

    const changed = withDefaults({ backends: { up: { type: 'openai-chat', baseUrl: 'http://127.0.0.1:10/v1' } } });
    expect(await registry.get('up', changed)).not.toBe(first);
    expect(seen).toEqual(['offline', 'up', 'up']);
  });
});
