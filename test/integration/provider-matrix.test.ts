import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withSection } from '../../scripts/doc-sections.js';
import { forgetAccessTokens } from '../../src/backends/vertex/access-token.js';
import { makeHome, readConfig, removeHome, runCli } from '../cli/run-cli.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { answerText, firstRequest, secondRequest, send, type ClientFormat, type Turn } from './provider-profiles/clients.js';
import { COLUMNS, PROVIDERS_SECTION, renderProvidersSection, type Cell, type MeasuredRow } from './provider-matrix/render.js';
import { backendOf, PROVIDER_ROWS, type ProviderRow, type StartedUpstream } from './provider-matrix/rows.js';
import { SKU, UPSTREAM_KEY } from './support.js';

/**
 * Every provider users route to, measured: each row's fake behaves as the provider documents, the
 * backend is added with the `backends add` line a user types (run through the real CLI, the base
 * URL and credentials swapped for the fake's) and the SKU routed with `routes set`; then each client
 * format, streamed and not, runs a two-turn tool loop through a real router. The providers section
 * of docs/compatibility.md is this test's table (`npm run docs:providers` rewrites it).
 */

let router: TestRouter;
const home = makeHome();
const measured = new Map<ProviderRow, MeasuredRow>();
const savedEnv = { ...process.env };

beforeAll(async () => {
  router = await startRouter();
});
afterAll(async () => {
  await router.close();
  removeHome(home);
});

/** The add line with the fake's options in place of the provider's (replaced where given, added where not). */
function argsFor(row: ProviderRow, options: Record<string, string>): string[] {
  const args = [...row.add];
  for (const [option, value] of Object.entries(options)) {
    const index = args.indexOf(option);
    if (index >= 0) args[index + 1] = value;
    else args.push(option, value);
  }
  return args;
}

async function cli(args: string[]): Promise<void> {
  const result = await runCli(args, { home });
  if (result.code !== 0) throw new Error(`svc-router ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
}

/**
 * The router's own 400, before anything reached the provider, is a refusal that says what to change;
 * anything else that is not a 200 is a defect, a provider's refusal of what the router sent above all.
 */
function refusedOrFailed(turn: Turn, which: string, reachedProvider: boolean): Pick<Cell, 'mark' | 'note'> {
  const message = String(turn.reply.error?.message ?? turn.raw).replace(/\s+/g, ' ').slice(0, 300);
  if (turn.status === 400 && message && !reachedProvider) return { mark: '⛔', note: message };
  return { mark: '❌', note: `the ${which} turn got HTTP ${turn.status}${reachedProvider ? ' after the provider was asked' : ''}: ${message}` };
}

async function runLoop(upstream: StartedUpstream, client: ClientFormat, stream: boolean): Promise<Pick<Cell, 'mark' | 'note'>> {
  const before = upstream.answered();
  /** One turn, and whether anything of it reached the provider. */
  const ask = async (body: Record<string, unknown>): Promise<[Turn, boolean]> => {
    const received = upstream.received();
    const turn = await send(router.origin, router.key, client, body, stream);
    return [turn, upstream.received() > received];
  };
  const first = firstRequest(client, SKU);
  const [one, oneReached] = await ask(first);
  if (one.status !== 200) return refusedOrFailed(one, 'first', oneReached);
  let second: Record<string, unknown>;
  try {
    second = secondRequest(client, first, one.reply, 'sunny');
  } catch {
    return { mark: '❌', note: `the first turn called no tool: ${one.raw.slice(0, 200)}` };
  }
  const [two, twoReached] = await ask(second);
  if (two.status !== 200) return refusedOrFailed(two, 'second', twoReached);
  const answer = answerText(client, two.reply);
  if (answer !== 'done: sunny') return { mark: '❌', note: `the final answer was ${JSON.stringify(answer)}, not the tool's result` };
  const answered = upstream.answered() - before;
  if (answered !== 2) return { mark: '❌', note: `the provider answered ${answered} requests, not 2` };
  const warnings = [...new Set([...one.warnings, ...two.warnings])];
  return { mark: '✅', ...(warnings.length ? { note: `Warnings: ${warnings.join(' ')}` } : {}) };
}

describe.each(PROVIDER_ROWS.map((row) => [row.provider, row] as const))('%s', (_provider, row) => {
  let upstream: StartedUpstream;
  const keyOption = row.add.indexOf('--api-key-env');

  beforeAll(async () => {
    forgetAccessTokens();
    upstream = await row.start();
    // The key the add line names a variable for (the generic fakes demand it), and the credentials the router reads from the environment.
    Object.assign(process.env, keyOption >= 0 ? { [row.add[keyOption + 1]!]: UPSTREAM_KEY } : {}, upstream.env);
    await cli(argsFor(row, upstream.options));
    const target = `${backendOf(row)}:${row.upstreamModel}`;
    await cli(['routes', 'set', SKU, target]);
    const stored = readConfig(home)!;
    router.config.update((settings) => {
      settings.backends[backendOf(row)] = stored.backends[backendOf(row)];
      settings.routes[SKU] = stored.routes[SKU];
    });
    measured.set(row, { row, cells: [], routeLine: `svc-router routes set ${SKU} ${target}` });
  });
  afterAll(async () => {
    await upstream?.close();
    for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
    Object.assign(process.env, savedEnv);
  });

  it.each(COLUMNS)('a %s client (streamed: %s) runs a two-turn tool loop, or is refused with what to change', async (client, stream) => {
    const cell: Cell = { client, stream, ...(await runLoop(upstream, client, stream)) };
    measured.get(row)!.cells.push(cell);
    expect(cell.mark, cell.note).not.toBe('❌');
  });
});

describe('docs/compatibility.md', () => {
  it('holds the providers section these loops measured', async () => {
    const rows = PROVIDER_ROWS.map((row) => measured.get(row)).filter((row) => row !== undefined && row.cells.length === COLUMNS.length) as MeasuredRow[];
    // Run alone (-t) the table is partial: only the whole file vouches for the page.
    if (rows.length !== PROVIDER_ROWS.length) return;
    const docs = new URL('../../docs/compatibility.md', import.meta.url);
    const composed = withSection(readFileSync(docs, 'utf8'), PROVIDERS_SECTION, renderProvidersSection(rows));
    await expect(composed).toMatchFileSnapshot('../../docs/compatibility.md');
  });
});
