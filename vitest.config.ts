import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two projects that together are the whole suite (`npm test`, what CI runs):
 *
 * - `quick` (`npm run test:quick`): the suites that need only Node and this checkout: no agents to
 *   download, no llama-server, no Redis, no browser, no network, no built CLI. They share one
 *   module graph per worker thread (no per-file isolation), which is most of why they are quick;
 *   they run so in the whole suite too, so a test cannot pass in one tier and fail in the other.
 * - `full`, run after it: everything else (the CLI in child processes, real SDK clients and agents, the real
 *   model, Redis, the dashboard in Chromium, the reliability suites), each file isolated.
 *
 * docs/testing.md says what each tier holds and how to run one area.
 */
export const QUICK_AREAS = ['test/unit', 'test/server', 'test/catalog', 'test/usage', 'test/fakes', 'test/conformance'];

const quickFiles = QUICK_AREAS.map((area) => `${area}/**/*.test.ts`);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      // The quick tier runs first (groupOrder), on every core: a broken translator fails in the first minute of `npm test` too.
      { extends: true, test: { name: 'quick', include: quickFiles, pool: 'threads', isolate: false, maxWorkers: '100%', sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'full', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...quickFiles], sequence: { groupOrder: 1 } } },
    ],
  },
});
