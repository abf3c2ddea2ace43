import { describe, expect, it } from 'vitest';
import { wireFormatOf } from '../../src/backends/backend.js';
import { BackendRegistry } from '../../src/backends/backend-registry.js';
import { LOADERS } from '../../src/backends/registry.js';
import { BACKEND_TYPES, isBackendType } from '../../src/core/backend-types.js';
import { withDefaults, type BackendSettings } from '../../src/config/settings.js';
import { UPSTREAM_KINDS as INTEGRATION_KINDS } from '../integration/support.js';
import { UPSTREAM_KINDS as RELIABILITY_KINDS } from '../reliability/support.js';

describe('backend registry', () => {
  it('lists each type once, with a loader for each and for no other', () => {
    expect(new Set(BACKEND_TYPES).size).toBe(BACKEND_TYPES.length);
    expect(Object.keys(LOADERS).sort()).toEqual([...BACKEND_TYPES].sort());
  });

  it('runs every type through the upstream matrices of the integration and reliability suites', () => {
    // Each has a fake of the type's upstream; a new type is added to both lists with its fake.
    // vertex is Anthropic's and Gemini's wires behind Google credentials, bedrock Anthropic's behind
    // SigV4 and AWS event-stream framing: their own suites (test/integration/vertex-over-backends.test.ts,
    // test/integration/bedrock-backend.test.ts) run the client formats over them.
    const wires = BACKEND_TYPES.filter((type) => type !== 'vertex' && type !== 'bedrock');
    expect([...INTEGRATION_KINDS].sort()).toEqual([...wires].sort());
    expect([...RELIABILITY_KINDS].sort()).toEqual([...wires].sort());
  });

  it('knows a type only as its own entry', () => {
    for (const type of BACKEND_TYPES) expect(isBackendType(type)).toBe(true);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', '', 'no-such-type']) expect(isBackendType(name)).toBe(false);
  });

  it('builds a configured backend of every listed type, and names the types for an unknown one', async () => {
    const registry = new BackendRegistry();
    const backends: Record<string, BackendSettings> = {};
    for (const type of BACKEND_TYPES) backends[`b-${type}`] = { type, baseUrl: 'http://127.0.0.1:9/v1' };
    backends.odd = { type: 'toString' as BackendSettings['type'], baseUrl: 'http://127.0.0.1:9/v1' };
    const settings = withDefaults({ backends });
    for (const type of BACKEND_TYPES) expect((await registry.get(`b-${type}`, settings)).name).toBe(`b-${type}`);
    expect(() => registry.get('odd', settings)).toThrow(BACKEND_TYPES.join(', '));
  });

  it('gives a backend a client wire format only when it forwards that format, per model where it serves several', async () => {
    const registry = new BackendRegistry();
    const backends: Record<string, BackendSettings> = {};
    for (const type of BACKEND_TYPES) backends[type] = { type, baseUrl: 'http://127.0.0.1:9/v1' };
    const settings = withDefaults({ backends });
    const claimed: Record<string, string | undefined> = {};
    for (const type of BACKEND_TYPES) {
      const backend = await registry.get(type, settings);
      // A wire format is what same-format forwarding matches on (src/handlers/forward/forward-chain.ts); one without a tap would claim a format it never forwards.
      expect(backend.forward !== undefined, type).toBe(backend.wireFormat !== undefined || backend.wireFormatFor !== undefined);
      for (const model of ['claude-sonnet-4-5', 'gemini-2.5-pro']) {
        const wire = wireFormatOf(backend, model);
        if (wire !== undefined || backend.wireFormatFor) claimed[backend.wireFormatFor ? `${type} ${model}` : type] = wire;
      }
    }
    // Vertex AI serves Gemini's API for its Gemini models, and Claude over a Messages body of its own (not forwarded).
    expect(claimed).toEqual({ 'openai-chat': 'chat', 'openai-responses': 'responses', anthropic: 'messages', gemini: 'gemini', 'vertex claude-sonnet-4-5': undefined, 'vertex gemini-2.5-pro': 'gemini' });
  });

  it('loads a type on its first use only, then hands the built backend out without a promise', async () => {
    const registry = new BackendRegistry();
    const settings = withDefaults({ backends: { a: { type: 'anthropic', baseUrl: 'http://127.0.0.1:9' }, b: { type: 'anthropic', baseUrl: 'http://127.0.0.1:10' } } });
    const first = registry.get('a', settings);
    expect(first).toBeInstanceOf(Promise);
    const built = await first;
    expect(registry.get('a', settings)).toBe(built);
    // Another backend of a type already loaded is built at once.
    expect(registry.get('b', settings)).not.toBeInstanceOf(Promise);
  });
});
