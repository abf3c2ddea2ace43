import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECT_CLIENTS } from '../../src/cli/connect-clients.js';
import { BIN, makeHome, removeHome, ROOT, startServe, type ServeChild } from '../cli/run-cli.js';

/**
 * The README's code runs as printed, in a clean shell that ran only what the README says before
 * it: a serve (here on a free port, in an empty home), then `eval "$(svc-router env)"`. Each ```js
 * block of the README, and each SDK snippet `svc-router connect` prints, then gets an answer.
 */

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const EVAL_ENV = 'eval "$(svc-router env)"';
const JS_BLOCKS = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => ({ code: match[1]!, at: match.index }));
/** The clients whose `connect` artefact is a program (the others are config files). */
const SNIPPET_CLIENTS = CONNECT_CLIENTS.filter((client) => !client.configFile).map((client) => client.name);

let home: string;
let bin: string;
let project: string;
let serve: ServeChild;

beforeAll(async () => {
  home = makeHome();
  // `svc-router` on PATH, as after `npm link`.
  bin = path.join(home, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'svc-router'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  serve = await startServe(home, ['--port', '0', '--quiet']);
  // Inside the checkout, so `openai` and `@anthropic-ai/sdk` resolve as in a project that installed them.
  project = fs.mkdtempSync(path.join(ROOT, 'test', '.snippet-'));
});

afterAll(async () => {
  await serve.kill();
  fs.rmSync(project, { recursive: true, force: true });
  removeHome(home);
});

/**
 * bash with nothing inherited but where node is: no OPENAI_*, ANTHROPIC_* or SVC_ROUTER_* from
 * the test's own environment. HOME is the serve's, as for the person who started it.
 */
function cleanShell(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, SVC_ROUTER_HOME: home, NO_COLOR: '1' };
  return new Promise((resolve) => {
    execFile('/usr/bin/env', ['-i', ...Object.entries(env).map(([name, value]) => `${name}=${value}`), 'bash', '-c', script], { cwd: project, timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('README: the code runs as printed', () => {
  it('says to run eval "$(svc-router env)" before its first code block', () => {
    expect(JS_BLOCKS.length).toBeGreaterThanOrEqual(2);
    const said = readme.indexOf(`\n${EVAL_ENV}`);
    expect(said).toBeGreaterThan(-1);
    expect(said).toBeLessThan(JS_BLOCKS[0]!.at);
  });

  it.each(JS_BLOCKS.map((block, index) => [`block ${index + 1}: ${block.code.split('\n')[0]}`, block.code] as const))('%s', async (_name, code) => {
    // The README names the default address; this serve took a free port.
    const file = path.join(project, `readme-${Math.random().toString(36).slice(2)}.mjs`);
    fs.writeFileSync(file, code.replaceAll('http://127.0.0.1:8787', serve.origin));
    const result = await cleanShell(`${EVAL_ENV} && node ${JSON.stringify(file)}`);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('you said "hi"');
  });

  it.each(SNIPPET_CLIENTS)('svc-router connect %s > example.mjs && node example.mjs', async (client) => {
    const file = `${client}.mjs`;
    const result = await cleanShell(`${EVAL_ENV} && svc-router connect ${client} > ${file} && node ${file}`);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('you said "Say hello."');
  });
});
