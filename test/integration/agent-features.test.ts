import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { GEMINI_CLI } from './agent-features/gemini-cli-probes.js';
import { PROBES as CLAUDE_CODE_AND_CODEX } from './agent-features/probes.js';
import { RESPONSES_SOCKET } from './agent-features/responses-socket-probes.js';
import { renderFeaturePage, ROUTES, type FeatureRow, type Outcome, type Route } from './agent-features/outcomes.js';
import { Fakes, setRoute, SKU } from './support.js';

/**
 * Every agent feature on every route, measured: each probe sends the feature as Claude Code,
 * Codex, Gemini CLI or a multi-agent Responses WebSocket client sends it, through a real router to a fake upstream of each type (and the offline backend),
 * and reads what the upstream received and what the client got. No cell may lose the feature
 * silently, and docs/agent-features.md is this test's table (`npm run docs:features` rewrites it).
 */

const PROBES = [...CLAUDE_CODE_AND_CODEX, ...GEMINI_CLI, ...RESPONSES_SOCKET];

let router: TestRouter;
const fakes = new Fakes();
const closers: Array<() => Promise<unknown>> = [];
const measured = new Map<string, FeatureRow>();

beforeAll(async () => {
  router = await startRouter();
});
afterEach(async () => {
  await fakes.closeAll();
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(() => router.close());

describe.each(PROBES.map((probe) => [probe.feature, probe] as const))('%s', (_feature, probe) => {
  it.each(ROUTES.map((route) => [route]))('on a route to %s: reaches the upstream, is served by the router, or is refused or named', async (route: Route) => {
    const outcome: Outcome = await probe.run({
      router,
      route,
      async upstream(script) {
        if (route === 'offline') {
          setRoute(router, SKU, ['offline']);
          return [];
        }
        const { fake } = await fakes.routeSku(router, route, script);
        return fake.requests;
      },
      closeLater: (close) => closers.push(close),
    });
    const key = `${probe.agent}\u0000${probe.feature}`;
    const row = measured.get(key) ?? { agent: probe.agent, feature: probe.feature, cells: {} as Record<Route, Outcome> };
    row.cells[route] = outcome;
    measured.set(key, row);
    expect(outcome.by, outcome.how).not.toBe('lost');
  });
});

describe('docs/agent-features.md', () => {
  it('is the table these probes measured', async () => {
    const complete = [...measured.values()].filter((row) => ROUTES.every((route) => row.cells[route]));
    // Run alone (-t) the table is partial: only the whole file vouches for the page.
    if (complete.length !== PROBES.length) return;
    await expect(renderFeaturePage(complete)).toMatchFileSnapshot('../../docs/agent-features.md');
  });
});
