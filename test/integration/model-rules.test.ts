import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { COLUMNS, renderRulesPage, type Cell, type Column, type RuleRow } from './model-rules/outcomes.js';
import { PROBES } from './model-rules/probes.js';
import { Fakes } from './support.js';

/**
 * Every catalog rule on every backend type, measured: each probe sends the request the rule is
 * about through a real router to a fake upstream of each type serving the model the column names
 * (the fakes refuse what the catalog rows say the vendor refuses), and reads what the upstream got
 * and what the client got. No cell may lose the request silently, and docs/model-rules.md is this
 * test's table (`npm run docs:model-rules` rewrites it).
 */

let router: TestRouter;
const fakes = new Fakes();
const measured = new Map<string, RuleRow>();

beforeAll(async () => {
  router = await startRouter();
});
afterEach(() => fakes.closeAll());
afterAll(() => router.close());

describe.each(PROBES.map((probe) => [probe.rule, probe] as const))('%s', (_rule, probe) => {
  it.each(COLUMNS.map((column) => [column]))('on %s: passed, adapted and named, or refused naming the rule', async (column: Column) => {
    const cell: Cell = await probe.run({ router, column, model: probe.models[column], start: (kind, script) => fakes.start(kind, script) });
    const row = measured.get(probe.rule) ?? { rule: probe.rule, field: probe.field, cells: {} as Record<Column, Cell> };
    row.cells[column] = cell;
    measured.set(probe.rule, row);
    expect(cell.by, cell.text).not.toBe('lost');
  });
});

describe('docs/model-rules.md', () => {
  it('is the table these probes measured', async () => {
    const complete = PROBES.map((probe) => measured.get(probe.rule)).filter((row): row is RuleRow => row !== undefined && COLUMNS.every((column) => row.cells[column]));
    // Run alone (-t) the table is partial: only the whole file vouches for the page.
    if (complete.length !== PROBES.length) return;
    await expect(renderRulesPage(complete)).toMatchFileSnapshot('../../docs/model-rules.md');
  });
});
