import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, EXIT_FAILED, EXIT_NOT_RUNNING, EXIT_UNREACHABLE, EXIT_USAGE } from '../../src/cli/cli-error.js';
import { HELP_EXAMPLES, helpPath } from '../../src/cli/help-examples.js';
import { buildProgram } from '../../src/cli/program.js';
import { unusedPort } from '../helpers/unused-port.js';
import { callRouter, initHome, makeHome, PACKAGE_VERSION, removeHome, ROOT, runCli, startServe, type ServeChild } from './run-cli.js';

/**
 * The CLI as a script sees it: one error style, JSON errors on stderr under --json with a stable
 * code, exit codes that tell "unreachable" from "refused" from "usage", and NDJSON streams.
 */

const program = buildProgram(PACKAGE_VERSION);
const leaves = (command: Command): Command[] => command.commands.flatMap((child) => (child.commands.length ? leaves(child) : [child]));
const LEAF_PATHS = leaves(program).map(helpPath);

let home: string;
let key: string;
let server: ServeChild;
beforeAll(async () => {
  home = makeHome();
  key = await initHome(home);
  server = await startServe(home, ['--port', '0', '--quiet']);
});
afterAll(async () => {
  await server.kill();
  removeHome(home);
});

/** stderr as exactly one JSON object on one line. */
function jsonError(stderr: string): { error: { code: string; message: string; exit_code: number; [field: string]: unknown } } {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

describe('one error style for every usage error, commander parse errors included', () => {
  it.each(LEAF_PATHS)('%s --no-such-option: "svc-router: …" (exit 2), or one JSON object under --json', async (commandPath) => {
    const words = commandPath.split(' ');
    const text = await runCli([...words, '--no-such-option'], { home });
    expect(text.code).toBe(EXIT_USAGE);
    // (Commands with a required option report that first; either way, one line in the one style.)
    expect(text.stderr).toMatch(/^svc-router: (unknown option '--no-such-option'|required option '[^']+' not specified)\n\(run with --help for usage\)\n$/);
    expect(text.stderr).not.toMatch(/^error:/m);
    expect(text.stdout).toBe('');

    const json = await runCli([...words, '--no-such-option', '--json'], { home });
    expect(json.code).toBe(EXIT_USAGE);
    expect(json.stdout).toBe('');
    const { error } = jsonError(json.stderr);
    expect(error).toMatchObject({ code: 'usage', exit_code: EXIT_USAGE });
    expect(text.stderr).toContain(error.message);
  });

  it('an unknown command and a missing argument read the same way', async () => {
    const unknown = await runCli(['bogus'], { home });
    expect(unknown.code).toBe(EXIT_USAGE);
    // (commander's suggestion of a near name, when there is one, stays on its own line)
    expect(unknown.stderr).toMatch(/^svc-router: unknown command 'bogus'\n(\(Did you mean [\w-]+\?\)\n)?\(run with --help for usage\)\n$/);
    const missing = await runCli(['keys', 'revoke'], { home });
    expect(missing.code).toBe(EXIT_USAGE);
    expect(missing.stderr).toMatch(/^svc-router: missing required argument 'slug'/);
  });
});

describe('exit codes and error codes tell the failures apart', () => {
  it('server unreachable: exit 4, code unreachable', async () => {
    const port = await unusedPort();
    const result = await runCli(['whoami', '--base-url', `http://127.0.0.1:${port}`, '--json'], { home });
    expect(result.code).toBe(EXIT_UNREACHABLE);
    expect(result.stdout).toBe('');
    const { error } = jsonError(result.stderr);
    expect(error).toMatchObject({ code: 'unreachable', exit_code: EXIT_UNREACHABLE });
    expect(error.message).toContain(`127.0.0.1:${port}`);
  });

  it('request refused: exit 1, code request_refused with the HTTP status and the router code', async () => {
    const result = await runCli(['whoami', '--base-url', server.origin, '--key', 'svc_alice_wrongwrongwrongwrongwrongwrongwrong', '--json'], { home });
    expect(result.code).toBe(EXIT_FAILED);
    expect(jsonError(result.stderr).error).toMatchObject({ code: 'request_refused', exit_code: EXIT_FAILED, status: 401, server_code: 'invalid_api_key' });
  });

  it('a bad option value: exit 2, code usage; not initialised: exit 2, code not_initialised', async () => {
    const bad = await runCli(['chat', 'hi', '--max-tokens', 'lots', '--json'], { home });
    expect(bad.code).toBe(EXIT_USAGE);
    expect(jsonError(bad.stderr).error.code).toBe('usage');
    const empty = makeHome();
    try {
      const none = await runCli(['whoami', '--json'], { home: empty });
      expect(none.code).toBe(EXIT_USAGE);
      expect(jsonError(none.stderr).error.code).toBe('not_initialised');
    } finally {
      removeHome(empty);
    }
  });

  it('a 429 at the cap is refused with server_code usage_cap_exceeded, and keys cap raises it while serve runs', async () => {
    const capped = makeHome();
    try {
      const cappedKey = await initHome(capped, ['--developer', 'carol', '--cap', '100000']);
      const running = await startServe(capped, ['--port', '0', '--quiet']);
      try {
        const banner = await running.waitForLine(/usage cap:/);
        expect(banner).toContain('usage cap: 100,000 tokens / 30 days for carol; raise it: svc-router keys cap carol TOKENS');
        expect((await runCli(['keys', 'cap', 'carol', '1'], { home: capped })).code).toBe(0);
        // A prompt of some tokens: more than the 1 left.
        const refused = await runCli(['chat', 'tell me about the cap on my key, please', '--base-url', running.origin, '--json'], { home: capped });
        expect(refused.code).toBe(EXIT_FAILED);
        const { error } = jsonError(refused.stderr);
        expect(error).toMatchObject({ code: 'request_refused', status: 429, server_code: 'usage_cap_exceeded' });
        expect(error.message).toContain('svc-router keys cap carol TOKENS');

        const raised = await runCli(['keys', 'cap', 'carol', '200000000', '--json'], { home: capped });
        expect(JSON.parse(raised.stdout)).toEqual({ developer: 'carol', cap_tokens: 200_000_000, previous_cap_tokens: 1 });
        const served = await callRouter(running.origin, cappedKey, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'hi' }] });
        expect(served.status).toBe(200);
      } finally {
        await running.kill();
      }
    } finally {
      removeHome(capped);
    }
  });

  it('keys cap refuses an unknown developer, including names of Object.prototype', async () => {
    for (const slug of ['nobody', 'constructor']) {
      const result = await runCli(['keys', 'cap', slug, '5', '--json'], { home });
      expect(result.code, slug).toBe(EXIT_FAILED);
      expect(jsonError(result.stderr).error).toMatchObject({ code: 'failed', exit_code: EXIT_FAILED });
      expect(jsonError(result.stderr).error.message).toContain(`no key is issued for developer '${slug}'`);
    }
  });

  it('status: exit 3 when nothing runs', async () => {
    const empty = makeHome();
    try {
      expect((await runCli(['status'], { home: empty })).code).toBe(EXIT_NOT_RUNNING);
    } finally {
      removeHome(empty);
    }
  });
});

describe('chat --stream --json is NDJSON', () => {
  it('prints one chunk object per line, the last one carrying the usage', async () => {
    const result = await runCli(['chat', '--stream', '--json', '--base-url', server.origin, '--key', key, 'count to three'], { home });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    const chunks = lines.map((line) => JSON.parse(line) as { object: string; choices: unknown[]; usage?: { total_tokens: number } });
    for (const chunk of chunks) expect(chunk.object).toBe('chat.completion.chunk');
    expect(chunks.at(-1)!.usage!.total_tokens).toBeGreaterThan(0);
  });
});

describe('help and the documented contract', () => {
  it('every example belongs to a command that exists, and those commands show them under --help', async () => {
    const paths = new Set(LEAF_PATHS);
    for (const examplePath of Object.keys(HELP_EXAMPLES)) expect(paths.has(examplePath), examplePath).toBe(true);
    const help = await runCli(['connect', '--help'], { home });
    expect(help.stdout).toContain('Examples:\n  $ svc-router connect codex --write');
  });

  it('docs/cli.md documents every exit code and every error code', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
    for (const code of Object.keys(ERROR_CODES)) expect(doc, code).toContain(`\`${code}\``);
    for (const exit of [0, EXIT_FAILED, EXIT_USAGE, EXIT_NOT_RUNNING, EXIT_UNREACHABLE]) expect(doc).toMatch(new RegExp(`^\\| ${exit} \\|`, 'm'));
  });
});
