import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_FAILED, EXIT_NOT_RUNNING, EXIT_UNREACHABLE, EXIT_USAGE } from '../../src/cli/cli-error.js';
import { helpPath } from '../../src/cli/help-examples.js';
import { buildProgram } from '../../src/cli/program.js';
import { unusedPort } from '../helpers/unused-port.js';
import { configText, initHome, makeHome, PACKAGE_VERSION, removeHome, runCli } from './run-cli.js';

/**
 * One rule for every command's failures: exit 2 when the command line itself is wrong (an unknown
 * option, a malformed value, a file given to it that cannot be read or is not valid) or no key is
 * stored; exit 1 when it is well formed but what it names is missing or already there, or the
 * operation failed. Either way nothing is changed. Every leaf command has a row, so a new command
 * (or a new error path) gets one too.
 */

type Home = 'set-up' | 'fresh';
interface Row {
  args: string[];
  code: number;
  /** 'set-up': alice initialised, bob issued, backend oa routed from svc.intelligent-pro, a price; 'fresh': nothing. */
  home?: Home;
}

const PORT_IN_USE = '{PORT_IN_USE}';
const NOTHING_LISTENS = '{NOTHING_LISTENS}';

const ROWS: Row[] = [
  { args: ['serve', '--port', '70000'], code: EXIT_USAGE },
  { args: ['serve', '--log-format', 'xml'], code: EXIT_USAGE },
  { args: ['serve', '--port', PORT_IN_USE], code: EXIT_FAILED },
  { args: ['logs', '--since', 'soon'], code: EXIT_USAGE },
  { args: ['logs', '--status', '7xx'], code: EXIT_USAGE },
  { args: ['logs', '--session', 'no such id'], code: EXIT_USAGE },
  { args: ['status'], code: EXIT_NOT_RUNNING },
  { args: ['stop', '--timeout', 'never'], code: EXIT_USAGE },
  { args: ['restart', '--timeout', 'never'], code: EXIT_USAGE },
  { args: ['init', '--developer', 'alice'], code: EXIT_FAILED },
  { args: ['init', '--cap', '0', '--force'], code: EXIT_USAGE },
  { args: ['init', '--developer', 'Not A Slug'], code: EXIT_USAGE, home: 'fresh' },
  { args: ['keys', 'issue', '--developer', 'bob'], code: EXIT_FAILED },
  { args: ['keys', 'issue', '--developer', 'Not A Slug'], code: EXIT_USAGE },
  { args: ['keys', 'issue'], code: EXIT_USAGE },
  { args: ['keys', 'cap', 'nobody', '5'], code: EXIT_FAILED },
  { args: ['keys', 'cap', 'alice', 'lots'], code: EXIT_USAGE },
  { args: ['keys', 'list', 'extra'], code: EXIT_USAGE },
  { args: ['keys', 'limit', 'nobody', '--rpm', '5'], code: EXIT_FAILED },
  { args: ['keys', 'limit', 'alice'], code: EXIT_USAGE },
  { args: ['keys', 'revoke', 'nobody'], code: EXIT_FAILED },
  { args: ['keys', 'revoke', 'constructor'], code: EXIT_FAILED },
  { args: ['keys', 'revoke'], code: EXIT_USAGE },
  { args: ['backends', 'add', 'x', '--type', 'nope', '--base-url', 'http://127.0.0.1:9/v1'], code: EXIT_USAGE },
  { args: ['backends', 'add', 'offline', '--type', 'openai-chat', '--base-url', 'http://127.0.0.1:9/v1'], code: EXIT_USAGE },
  { args: ['backends', 'list', '--jsn'], code: EXIT_USAGE },
  { args: ['backends', 'pool', 'nosuch', '--key', 'a', '--key', 'b'], code: EXIT_FAILED },
  { args: ['backends', 'pool', 'oa', '--key', 'a'], code: EXIT_USAGE },
  { args: ['backends', 'pool', 'nosuch', '--key', 'a'], code: EXIT_USAGE },
  { args: ['backends', 'remove', 'nosuch'], code: EXIT_FAILED },
  { args: ['backends', 'remove', 'oa'], code: EXIT_FAILED },
  { args: ['routes', 'set', 'svc.intelligent-basic', 'ghost:x'], code: EXIT_FAILED },
  { args: ['routes', 'set', 'gpt-4', 'oa'], code: EXIT_USAGE },
  { args: ['routes', 'set', 'svc.inteligent-basic', 'oa'], code: EXIT_USAGE },
  { args: ['routes', 'set', 'svc.team-search', 'oa'], code: EXIT_USAGE },
  { args: ['routes', 'set', 'svc.intelligent-basic', 'oa', '--context-window', 'big'], code: EXIT_USAGE },
  // Usage is judged before the config is looked at: a wrong command line exits 2 whatever it names.
  { args: ['routes', 'set', 'svc.intelligent-basic', 'ghost:x', '--context-window', 'big'], code: EXIT_USAGE },
  { args: ['routes', 'window', 'svc.team-search'], code: EXIT_USAGE },
  { args: ['keys', 'cap', 'nobody', 'lots'], code: EXIT_USAGE },
  { args: ['keys', 'limit', 'nobody', '--rpm', 'many'], code: EXIT_USAGE },
  { args: ['routes', 'window', 'svc.intelligent-basic', '0'], code: EXIT_USAGE },
  { args: ['routes', 'window', 'svc.intelligent-lite', '--unset'], code: EXIT_FAILED },
  { args: ['routes', 'window', 'svc.team-search', '1000'], code: EXIT_FAILED },
  { args: ['routes', 'list', 'extra'], code: EXIT_USAGE },
  { args: ['routes', 'rule', 'svc.intelligent-lite', 'bg', 'oa', '--background'], code: EXIT_FAILED },
  { args: ['routes', 'rule', 'svc.intelligent-pro', 'bg', 'oa'], code: EXIT_USAGE },
  { args: ['routes', 'rule-remove', 'svc.intelligent-pro', 'nosuch'], code: EXIT_FAILED },
  { args: ['routes', 'weights', 'svc.intelligent-lite', 'oa=1'], code: EXIT_FAILED },
  { args: ['routes', 'weights', 'svc.intelligent-pro', 'no-equals-sign'], code: EXIT_USAGE },
  { args: ['routes', 'unset', 'svc.intelligent-lite'], code: EXIT_FAILED },
  { args: ['routes', 'guard', 'svc.intelligent-pro', 'block'], code: EXIT_USAGE },
  { args: ['routes', 'search', 'svc.intelligent-lite', 'nosuch:model'], code: EXIT_FAILED },
  { args: ['routes', 'guard', 'svc.intelligent-lite', 'mask'], code: EXIT_FAILED },
  { args: ['prices', 'list', 'extra'], code: EXIT_USAGE },
  { args: ['prices', 'set', 'my-model', '--input', 'cheap', '--output', '1'], code: EXIT_USAGE },
  { args: ['prices', 'unset', 'nothing'], code: EXIT_FAILED },
  { args: ['config', 'path', 'extra'], code: EXIT_USAGE },
  { args: ['config', 'get', 'no.such.key'], code: EXIT_USAGE },
  { args: ['config', 'set', 'server.port', 'eighty'], code: EXIT_USAGE },
  { args: ['config', 'export', '-o', 'config.json'], code: EXIT_FAILED },
  { args: ['config', 'import', 'missing.json'], code: EXIT_USAGE },
  { args: ['config', 'import', 'invalid.json'], code: EXIT_USAGE },
  { args: ['config', 'validate'], code: EXIT_USAGE },
  { args: ['config', 'validate', 'invalid.json'], code: EXIT_USAGE },
  { args: ['whoami'], code: EXIT_USAGE, home: 'fresh' },
  { args: ['whoami', '--base-url', NOTHING_LISTENS], code: EXIT_UNREACHABLE },
  { args: ['usage'], code: EXIT_USAGE, home: 'fresh' },
  { args: ['sessions'], code: EXIT_USAGE, home: 'fresh' },
  { args: ['sessions', '--base-url', NOTHING_LISTENS], code: EXIT_UNREACHABLE },
  { args: ['models', '--base-url', 'not a url'], code: EXIT_USAGE },
  { args: ['models', 'list', '--base-url', 'not a url'], code: EXIT_USAGE },
  { args: ['models', 'info'], code: EXIT_USAGE },
  { args: ['chat', '   '], code: EXIT_USAGE },
  { args: ['chat', 'hi'], code: EXIT_USAGE, home: 'fresh' },
  { args: ['env'], code: EXIT_USAGE, home: 'fresh' },
  { args: ['doctor', '--client', 'emacs'], code: EXIT_USAGE },
  { args: ['connect', 'emacs'], code: EXIT_USAGE },
  { args: ['connect', 'openai-sdk', '--write'], code: EXIT_USAGE },
  { args: ['connect', 'claude', '--undo'], code: EXIT_FAILED },
  { args: ['connect', 'codex'], code: EXIT_USAGE, home: 'fresh' },
  { args: ['completion', 'tcsh'], code: EXIT_USAGE },
];

const leaves = (command: Command): Command[] => command.commands.flatMap((child) => (child.commands.length ? leaves(child) : [child]));

let setUp: string;
let blocker: net.Server;
let blockedPort: number;
let freePort: number;
const homes: string[] = [];

beforeAll(async () => {
  setUp = makeHome();
  await initHome(setUp);
  for (const args of [
    ['keys', 'issue', '--developer', 'bob'],
    ['backends', 'add', 'oa', '--type', 'openai-chat', '--base-url', 'http://127.0.0.1:9/v1'],
    ['routes', 'set', 'svc.intelligent-pro', 'oa:gpt-4o'],
    ['prices', 'set', 'my-model', '--input', '1', '--output', '2'],
  ]) {
    const result = await runCli(args, { home: setUp });
    if (result.code !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`);
  }
  fs.writeFileSync(path.join(setUp, 'invalid.json'), '{ "routes": { "svc.intelligent-pro": ["ghost"] } }\n');
  // Holds the port, and lets go of whoever connects (serve asks what holds a taken port).
  blocker = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  blockedPort = (blocker.address() as net.AddressInfo).port;
  freePort = await unusedPort();
});

afterAll(async () => {
  await new Promise((resolve) => blocker.close(resolve));
  for (const home of [setUp, ...homes]) removeHome(home);
});

/** A private copy of the set-up home (or an empty one), so rows run side by side. */
function homeFor(kind: Home): string {
  const home = makeHome();
  homes.push(home);
  if (kind === 'set-up') fs.cpSync(setUp, home, { recursive: true });
  return home;
}

describe('exit codes: 2 for a wrong command line, 1 for a failed operation, nothing changed either way', () => {
  it.concurrent.each(ROWS.map((row) => [row.args.join(' '), row] as const))('%s', async (_name, row) => {
    const home = homeFor(row.home ?? 'set-up');
    const args = row.args.map((word) => word.replace(PORT_IN_USE, String(blockedPort)).replace(NOTHING_LISTENS, `http://127.0.0.1:${freePort}`));
    const before = configText(home);
    const result = await runCli(args, { home });
    expect(result.code, result.stderr).toBe(row.code);
    if (row.code !== EXIT_NOT_RUNNING) expect(result.stderr).toMatch(/^svc-router: /);
    expect(configText(home)).toBe(before);
  });

  it('has a row for every command', () => {
    const covered = new Set(ROWS.map((row) => row.args.join(' ')));
    const missing = leaves(buildProgram(PACKAGE_VERSION))
      .map(helpPath)
      .filter((command) => ![...covered].some((line) => line === command || line.startsWith(`${command} `)));
    expect(missing).toEqual([]);
  });
});
