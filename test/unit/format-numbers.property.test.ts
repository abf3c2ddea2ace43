import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCount, formatPercent, formatUsd, formatUsdRate, NUMBER_FORMAT_SCRIPT } from '../../src/core/format-numbers.js';
import { createDashboard } from '../../src/server/dashboard/dashboard.js';
import { startRouter } from '../helpers/router.js';
import { send } from '../helpers/send.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ungrouped = (text: string): string => text.replaceAll(',', '');
/** Whole parts grouped by thousands: 1,234,567, never 1234,567 or 1,2345. */
const GROUPED = /^-?\$?\d{1,3}(?:,\d{3})*(?:\.\d+)?$/;

describe('counts', () => {
  it('group the rounded count by thousands, and say the same number', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (count) => {
        const text = formatCount(count);
        expect(text).toMatch(GROUPED);
        expect(ungrouped(text)).toBe(String(count));
      }),
    );
    expect(formatCount(200_000_000)).toBe('200,000,000');
    expect(formatCount(999)).toBe('999');
  });
});

describe('US dollars', () => {
  it('below a dollar keep three significant digits, without zeros that say nothing', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999_999 }), (nanoUsd) => {
        const usd = nanoUsd / 1e9;
        const text = formatUsd(usd);
        // (0.9995 and up round to $1.00.)
        expect(text).toMatch(/^\$(?:0\.\d+|1\.00)$/);
        const shown = Number(text.slice(1));
        // Three significant digits (or the last of nine decimals), within rounding.
        expect(Math.abs(shown - usd)).toBeLessThanOrEqual(Math.max(usd * 5e-3, 5e-10) + 1e-15);
        const decimals = text.split('.')[1]!;
        if (decimals.length > 2) expect(decimals.endsWith('0')).toBe(false);
      }),
    );
    expect(formatUsd(0.0006)).toBe('$0.0006');
    expect(formatUsd(0.5)).toBe('$0.50');
  });

  it('from a dollar up show cents, grouped by thousands', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 1e13 }), (cents) => {
        const text = formatUsd(cents / 100);
        expect(text).toMatch(GROUPED);
        expect(ungrouped(text)).toBe(`$${(cents / 100).toFixed(2)}`);
      }),
    );
  });

  it('say n/a for an unknown cost and $0 for none', () => {
    expect(formatUsd(null)).toBe('n/a');
    expect(formatUsd(undefined)).toBe('n/a');
    expect(formatUsd(Number.NaN)).toBe('n/a');
    expect(formatUsd(0)).toBe('$0');
  });

  it('write a configured price exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 0, max: 4 }), (units, places) => {
        const rate = units / 10 ** places;
        expect(Number(ungrouped(formatUsdRate(rate)).slice(1))).toBe(rate);
      }),
    );
    expect(formatUsdRate(1.875)).toBe('$1.875');
    expect(formatUsdRate(3)).toBe('$3');
  });
});

describe('one source for the CLI and the dashboard', () => {
  /** The script the page runs, run as a browser would: as a classic script declaring globals. */
  const browser = (): Record<string, (value: unknown) => string> => {
    const context = vm.createContext({});
    vm.runInContext(NUMBER_FORMAT_SCRIPT, context);
    return vm.runInContext('({ formatCount, formatUsd, formatUsdRate, formatPercent })', context) as Record<string, (value: unknown) => string>;
  };

  it("the page's functions write every value as the CLI's do", () => {
    const page = browser();
    const value = fc.oneof(fc.double({ noNaN: false }), fc.integer(), fc.constant(null), fc.integer({ min: 0, max: 1e12 }).map((n) => n / 1e9));
    fc.assert(
      fc.property(value, (number) => {
        expect(page.formatCount!(number)).toBe(formatCount(number as number));
        expect(page.formatUsd!(number)).toBe(formatUsd(number as number | null));
        expect(page.formatUsdRate!(number)).toBe(formatUsdRate(number as number));
        expect(page.formatPercent!(number)).toBe(formatPercent(number as number));
      }),
    );
  });

  it('the dashboard serves that script, and inlines it in its page', async () => {
    const ui = createDashboard();
    ui.requireAdminKey = false;
    const router = await startRouter({ http: { ui, requestLog: ui.feed } });
    try {
      const script = await send(router, '/ui/format.js');
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(script.text).toBe(NUMBER_FORMAT_SCRIPT);
      expect((await send(router, '/ui')).text).toContain(NUMBER_FORMAT_SCRIPT.trim());
    } finally {
      await router.close();
    }
  });

  it('no other code writes numbers its own way (toFixed, toLocaleString, Intl.NumberFormat)', () => {
    /** Numbers written for machines, not people: a header's value. */
    const MACHINE_READABLE = new Set(["src/handlers/completion.ts: headers['x-svc-overhead-ms'] = phases.overheadMs.toFixed(3);"]);
    const files = [...fs.readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).map((file) => path.join('src', file)), ...fs.readdirSync(path.join(ROOT, 'ui')).map((file) => path.join('ui', file))].filter(
      (file) => /\.(ts|js)$/.test(file) && file !== path.join('src', 'core', 'format-numbers.ts'),
    );
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of files) {
      for (const line of fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n')) {
        if (/\.toFixed\(|\.toLocaleString\(|\.toPrecision\(|Intl\.NumberFormat/.test(line)) found.push(`${file.split(path.sep).join('/')}: ${line.trim()}`);
      }
    }
    expect(found.filter((line) => !MACHINE_READABLE.has(line))).toEqual([]);
  });
});
