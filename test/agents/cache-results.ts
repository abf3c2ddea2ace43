// The shape of the prompt-cache results test/agents/prompt-cache.test.ts writes and
// scripts/cache-table.ts renders into docs/compatibility.md, and the table both print.
import { fileURLToPath } from 'node:url';
import type { CacheRoute } from './cache-session.js';

/** What a session's prompts cost, as the fake upstream's cache reported it. */
export interface Measured {
  /** Requests of the main conversation (side requests are left out). */
  requests: number;
  /** Every prompt token of those requests, cached or not. */
  inputTokens: number;
  cachedTokens: number;
  /** cachedTokens / inputTokens. */
  share: number;
  /** OpenAI routes: whether every request carried one prompt_cache_key. */
  promptCacheKey?: 'one key' | 'none' | 'changes';
}

/** One client session through the router to one upstream kind, against its baseline. */
export interface CacheCell extends Measured {
  /** 'Claude Code 2.1.330', 'Codex 0.169.0'. */
  client: string;
  /** What the session does: 'Bash', 'Bash + PostToolUse hook', … */
  session: string;
  route: CacheRoute;
  /** `direct`: the same client talking to the same fake itself; `append-only`: see appendOnlyShare. */
  baseline: 'direct' | 'append-only';
  baselineShare: number;
  /** The append-only share for this cell's own prompt sizes, shown for every cell. */
  appendOnlyShare: number;
  /** At least the baseline, within TOLERANCE. */
  outcome: 'pass' | 'short';
  /** Set when the cell is on the test's list of known shortfalls: why it is short. */
  knownShortfall?: string;
  /** Where the first request that read less than the append-only baseline stopped repeating the one before it. */
  firstBreak?: string;
}

/** One client session sent straight to the fake, the measured baseline. */
export interface DirectSession extends Measured {
  client: string;
  session: string;
  route: CacheRoute;
}

export interface CacheResults {
  agents: Record<string, string>;
  direct: DirectSession[];
  cells: CacheCell[];
  /** Wall time of the whole file, agent runs included. */
  runMs: number;
}

/** A routed share may fall short of its baseline by at most this much (one percentage point). */
export const TOLERANCE = 0.01;

/** test/agents/.results/prompt-cache.json (git-ignored). */
export const CACHE_RESULTS_FILE = fileURLToPath(new URL('./.results/prompt-cache.json', import.meta.url));

export const ROUTE_LABELS: Record<CacheRoute, string> = {
  anthropic: 'Anthropic',
  'openai-chat': 'OpenAI Chat',
  'openai-responses': 'OpenAI Responses',
  gemini: 'Gemini',
};

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const points = (difference: number) => `${difference >= 0 ? '+' : '−'}${Math.abs(difference * 100).toFixed(1)} pp`;
const tokens = (count: number) => count.toLocaleString('en-US');

/** The results as Markdown: the routed cells, then the direct sessions they are held to. */
export function renderCacheTables(results: CacheResults): string {
  const lines = [
    '| client | session | upstream | requests | prompt tokens | cached through the router | baseline | difference | prompt_cache_key | |',
    '|---|---|---|---:|---:|---:|---:|---:|:---:|:---:|',
  ];
  const notes: string[] = [];
  for (const cell of results.cells) {
    let mark = cell.outcome === 'pass' ? '✅' : '❌';
    const note = cell.outcome === 'short' ? [cell.knownShortfall, cell.firstBreak].filter(Boolean).join(' Measured: ') : cell.knownShortfall;
    if (note) {
      let index = notes.indexOf(note);
      if (index < 0) index = notes.push(note) - 1;
      mark += ` [${index + 1}](#prompt-cache-note-${index + 1})`;
    }
    const baseline = `${percent(cell.baselineShare)} ${cell.baseline === 'direct' ? 'direct' : 'append-only'}`;
    lines.push(
      `| ${cell.client} | ${cell.session} | ${ROUTE_LABELS[cell.route]} | ${cell.requests} | ${tokens(cell.inputTokens)} | ${percent(cell.share)} | ${baseline} | ${points(cell.share - cell.baselineShare)} | ${cell.promptCacheKey ?? '–'} | ${mark} |`,
    );
  }
  lines.push('', 'Each client session straight to the fake, the `direct` baselines:', '', '| client | session | upstream | requests | prompt tokens | cached | prompt_cache_key |', '|---|---|---|---:|---:|---:|:---:|');
  for (const run of results.direct) {
    lines.push(`| ${run.client} | ${run.session} | ${ROUTE_LABELS[run.route]} | ${run.requests} | ${tokens(run.inputTokens)} | ${percent(run.share)} | ${run.promptCacheKey ?? '–'} |`);
  }
  if (notes.length) {
    lines.push('', 'Notes:', '');
    notes.forEach((note, index) => lines.push(`${index + 1}. <a id="prompt-cache-note-${index + 1}"></a>${note}`));
  }
  return lines.join('\n');
}
