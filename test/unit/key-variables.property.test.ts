import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withDefaults, type BackendSettings } from '../../src/config/settings.js';
import { keyVariables, splitSet, unsetKeyWarnings } from '../../src/cli/key-variables.js';

/**
 * What serve records in serve.json and warns about at start: the names of the variables its
 * backends' keys come from, never a value, each backend whose key variable is unset named once.
 */

const name = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,11}$/);
const value = fc.string({ minLength: 8, maxLength: 24 }).map((text) => `val-${text}`);
const backend: fc.Arbitrary<BackendSettings> = fc.oneof(
  fc.record({ apiKeyEnv: name }).map((key) => ({ type: 'openai-chat' as const, baseUrl: 'http://127.0.0.1:9/v1', ...key })),
  fc.record({ apiKey: value }).map((key) => ({ type: 'openai-chat' as const, baseUrl: 'http://127.0.0.1:9/v1', ...key })),
  fc
    .array(fc.oneof(name.map((apiKeyEnv) => ({ apiKeyEnv })), value.map((apiKey) => ({ apiKey }))), { minLength: 2, maxLength: 4 })
    .map((keys) => ({ type: 'anthropic' as const, baseUrl: 'http://127.0.0.1:9', apiKeyEnv: 'IGNORED_WITH_A_POOL', keyPool: { strategy: 'round-robin' as const, keys } })),
);
const setup = fc.record({
  backends: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/), backend, { minKeys: 1, maxKeys: 4 }),
  env: fc.dictionary(name, value, { maxKeys: 6 }),
});

describe('key variables', () => {
  it('are split into set and unset by name only: every variable a call could read is there once, and no value is', () => {
    fc.assert(
      fc.property(setup, ({ backends, env }) => {
        const settings = withDefaults({ backends });
        const names = keyVariables(settings).map((entry) => entry.variable);
        const { set, unset } = splitSet(names, env);
        expect([...set, ...unset].sort()).toEqual([...new Set(names)].sort());
        for (const variable of set) expect(env[variable]).toBeTruthy();
        for (const variable of unset) expect(env[variable]).toBeFalsy();
        const recorded = JSON.stringify({ set, unset });
        for (const secret of Object.values(env)) expect(recorded).not.toContain(secret);
        // A pool replaces the backend's own key: its apiKeyEnv is never read, so never recorded.
        expect(names).not.toContain('IGNORED_WITH_A_POOL');
      }),
    );
  });

  it('warn once for each backend with an unset key variable, naming each unset one, and never for one whose keys are all there', () => {
    fc.assert(
      fc.property(setup, ({ backends, env }) => {
        const settings = withDefaults({ backends });
        const warnings = unsetKeyWarnings(settings, env);
        for (const [backendName] of Object.entries(backends)) {
          const unset = keyVariables(settings).filter((entry) => entry.backend === backendName && !env[entry.variable]);
          const about = warnings.filter((warning) => warning.startsWith(`backend '${backendName}' `));
          expect(about).toHaveLength(unset.length ? 1 : 0);
          for (const entry of unset) expect(about[0]).toContain(`$${entry.variable}`);
        }
        for (const secret of Object.values(env)) for (const warning of warnings) expect(warning).not.toContain(secret);
      }),
    );
  });
});
