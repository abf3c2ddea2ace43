import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BEGIN, END, renderBenchBlock, replaceBenchBlock } from '../../bench/docs-block.js';
import type { PeerRow } from '../../bench/peers.js';
import { parsePhaseTotals, phaseMeansUs, PHASE_METRIC } from '../../bench/phases.js';
import { printReport, targetsSection, writeReport, type BenchReport } from '../../bench/report.js';
import type { TargetCheck } from '../../bench/targets.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const target = (name: string, status: TargetCheck['status'], group: TargetCheck['group'] = 'round', value = 1): TargetCheck => ({
  target: name,
  value: status === 'SKIP' ? NaN : value,
  limit: 0.8,
  unit: '×',
  kind: 'min',
  status,
  pass: status === 'PASS',
  group,
  ...(status === 'SKIP' ? { note: 'not measured: no --peers' } : {}),
});

const peer = (name: string, version: string, pathName: string, stream: boolean): PeerRow => ({
  peer: name,
  version,
  path: pathName,
  stream,
  rps: 700,
  cpu_us_per_req: 1300,
  x_bare: 0.06,
  router_x_peer: 8.6,
  spread_pct: 5,
  failures: 0,
});

function report(overrides: Partial<BenchReport> = {}): BenchReport {
  return {
    machine: { cpus: 2, model: 'Test CPU', node: 'v20.20.2' },
    run: { command: 'npm run bench -- --peers', commit: 'abc1234', quick: false, rounds: 2, seconds_per_measurement: 5, connections: 64, load_generator: 'wrk', router_command: 'svc-router serve --port 0 --quiet', guardrail: 'off', pinned: true },
    router: { rss_mb_idle: 70 },
    bare_proxy: { rss_mb_idle: 60 },
    floor: [],
    paths: [],
    streams_1000: null,
    big_streams: [],
    cli: { node_ms: 40, version_ms: 60, whoami_ms: 200 },
    targets: [target('forwarded JSON × bare req/s', 'PASS', 'round', 0.85), target('translated JSON × bare req/s', 'FAIL', 'round', 0.6), target('svc-router ÷ Portkey req/s, same path', 'SKIP'), target('idle RSS', 'PASS', 'standing')],
    against: null,
    peers: [peer('portkey', '1.15.2', 'chat->openai-chat', false), peer('claude-code-router', '2.0.0', 'messages->openai-chat', false)],
    ...overrides,
  };
}

const printed = (r: BenchReport) => {
  const lines: string[] = [];
  printReport(r, (line) => lines.push(line));
  return lines.join('\n');
};

describe('the printed targets', () => {
  it('print each row with PASS, FAIL or SKIP, the round first, and count only what was measured', () => {
    const text = targetsSection(report().targets).join('\n');
    expect(text).toMatch(/forwarded JSON × bare req\/s\s+0\.85×\s+≥ 0\.8×\s+PASS/);
    expect(text).toMatch(/translated JSON × bare req\/s\s+0\.60×\s+≥ 0\.8×\s+FAIL/);
    expect(text).toMatch(/svc-router ÷ Portkey req\/s, same path\s+—\s+≥ 0\.8×\s+SKIP\s+not measured: no --peers/);
    expect(text.indexOf('forwarded JSON')).toBeLessThan(text.indexOf('standing targets'));
    expect(text.indexOf('standing targets')).toBeLessThan(text.indexOf('idle RSS'));
    expect(text).toContain('2/3 targets met (1 not measured in this run)');
  });

  it('the report prints every peer row, each with its own path, and its warnings', () => {
    const withFailure = report({ peers: [...report().peers!, { ...peer('portkey', '1.15.2', 'chat->openai-chat', true), failures: 9, error: '9 failed requests' }] });
    const text = printed(withFailure);
    expect(text).toMatch(/portkey 1\.15\.2\s+chat->openai-chat\s+json/);
    expect(text).toMatch(/claude-code-router 2\.0\.0\s+messages->openai-chat\s+json/);
    expect(text).toContain('warning: portkey stream: 9 failed requests');
    expect(text).toContain('CLI: node -e 0 40 ms · --version 60 ms');
  });

  it('prints the phases when the run has them, and nothing of them when it has none', () => {
    const phases = [{ path: 'chat->openai-chat', stream: false, phases_us: { write: 9.5, read: 4.25, admit: 2 } }];
    const text = printed(report({ phases }));
    expect(text).toMatch(/path\s+mode\s+read µs\s+admit µs\s+write µs\s+sum µs/);
    expect(text).toMatch(/chat->openai-chat\s+json\s+4\.3\s+2\.0\s+9\.5\s+15\.8/);
    expect(printed(report({ phases: null }))).not.toContain('per phase');
  });
});

describe('the run block in docs/performance.md', () => {
  const doc = `# Performance\n\nprose before\n\n${BEGIN}\nold run\n${END}\n\nprose after\n`;

  it('holds the printed report with both peers and the targets rows, and how the run was made', () => {
    const block = renderBenchBlock(report());
    expect(block).toContain('`npm run bench -- --peers`, at `abc1234`');
    expect(block).toMatch(/claude-code-router 2\.0\.0\s+messages->openai-chat/);
    expect(block).toMatch(/portkey 1\.15\.2\s+chat->openai-chat/);
    expect(block).toMatch(/translated JSON × bare req\/s.*FAIL/);
    expect(block.startsWith('Run: ')).toBe(true);
    expect(block.trimEnd().endsWith('```')).toBe(true);
  });

  it('reads a report back from latest.json as written (NaN as null) and renders it the same way', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-report-')), 'latest.json');
    try {
      writeReport(report(), file);
      const back = JSON.parse(fs.readFileSync(file, 'utf8')) as BenchReport;
      expect(renderBenchBlock(back)).toBe(renderBenchBlock(report()));
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });

  it('replaces only what lies between the markers, whatever was there, and again gives the same page', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (old, block) => {
        // A function, so that `$'` and the like in the old text are text, not replacement patterns.
        const page = doc.replace('old run', () => old.replaceAll(BEGIN, '').replaceAll(END, ''));
        const once = replaceBenchBlock(page, block);
        expect(once.startsWith(`# Performance\n\nprose before\n\n${BEGIN}\n${block}\n${END}`)).toBe(true);
        expect(once.endsWith(`${END}\n\nprose after\n`)).toBe(true);
        expect(replaceBenchBlock(once, block)).toBe(once);
      }),
    );
  });

  it('refuses a page without both markers in order', () => {
    expect(() => replaceBenchBlock('# Performance\n', 'x')).toThrow(/expected one/);
    expect(() => replaceBenchBlock(`${END}\n${BEGIN}\n`, 'x')).toThrow(/expected one/);
    expect(() => replaceBenchBlock(`${BEGIN}\n${BEGIN}\n${END}\n`, 'x')).toThrow(/expected one/);
  });
});

describe('phases from /metrics', () => {
  const exposition = (read: [number, number], write: [number, number]) =>
    [
      `# HELP ${PHASE_METRIC} The router's own time per phase.`,
      `# TYPE ${PHASE_METRIC} histogram`,
      `${PHASE_METRIC}_bucket{le="0.0001",phase="read"} 3`,
      `${PHASE_METRIC}_sum{phase="read",endpoint="/v1/chat/completions"} ${read[0]}`,
      `${PHASE_METRIC}_count{phase="read",endpoint="/v1/chat/completions"} ${read[1]}`,
      `${PHASE_METRIC}_sum{phase="read",endpoint="/v1/messages"} ${read[0]}`,
      `${PHASE_METRIC}_count{phase="read",endpoint="/v1/messages"} ${read[1]}`,
      `${PHASE_METRIC}_sum{phase="write"} ${write[0]}`,
      `${PHASE_METRIC}_count{phase="write"} ${write[1]}`,
      'svc_router_request_duration_seconds_sum{endpoint="/v1/messages"} 12',
      'svc_router_request_duration_seconds_count{endpoint="/v1/messages"} 40',
      'svc_router_other_seconds_sum{phase="read"} 99',
      'svc_router_other_seconds_count{phase="read"} 1',
    ].join('\n');

  it('adds a phase over its other labels, reads only the overhead histogram, and the mean is Δsum ÷ Δcount', () => {
    const before = parsePhaseTotals(exposition([0.001, 10], [0.002, 20]));
    expect(before.get('read')).toEqual({ sum: 0.002, count: 20 });
    expect([...before.keys()]).toEqual(['read', 'write']);
    const after = parsePhaseTotals(exposition([0.0015, 60], [0.002, 20]));
    const means = phaseMeansUs(before, after);
    expect(means.read).toBeCloseTo(((0.003 - 0.002) / (120 - 20)) * 1e6, 9);
    expect(means).not.toHaveProperty('write'); // nothing new in that phase
  });

  it('is empty for a router without the histogram', () => {
    expect(parsePhaseTotals('svc_router_requests_total{endpoint="/v1/messages",status="200"} 4\n').size).toBe(0);
  });
});
