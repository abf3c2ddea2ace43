import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { REFERENCE_END, REFERENCE_START, renderCliReference } from '../../src/cli/reference.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };

/** The `svc-router …` lines of the fenced blocks in one README section. */
function fencedCommandLines(section: string): string[] {
  const start = readme.indexOf(`## ${section}\n`);
  const end = readme.indexOf('\n## ', start + 1);
  const body = readme.slice(start, end === -1 ? undefined : end);
  const lines: string[] = [];
  for (const block of body.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.split('\n')) {
      const command = line.replace(/\s+#.*$/, '').trim();
      if (/(^|\|\s*)svc-router\s/.test(command)) lines.push(command);
    }
  }
  return lines;
}

describe('README', () => {
  it('has a CLI reference that matches the commander program exactly', () => {
    const start = readme.indexOf(REFERENCE_START);
    const end = readme.indexOf(REFERENCE_END);
    expect(start, 'README.md needs the cli-reference markers').toBeGreaterThan(-1);
    const documented = readme.slice(start + REFERENCE_START.length, end).trim();
    expect(documented, 'run `npm run docs` to regenerate the reference').toBe(renderCliReference(buildProgram(version)).trim());
  });

  describe('quick start commands', () => {
    let home: string;
    let bin: string;
    beforeAll(async () => {
      home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-readme-'));
      // `svc-router` on PATH as a newcomer has it after `npm link`: the built CLI.
      bin = path.join(home, 'bin');
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(bin, 'svc-router'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(root, 'bin/svc-router.js')}" "$@"\n`, { mode: 0o755 });
      // The quick start runs these after the first `serve`, which issued the local key.
      await run(path.join(bin, 'svc-router'), ['init'], { env: environment() });
    });
    afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

    const environment = () => ({ ...process.env, SVC_ROUTER_HOME: home, HOME: home, NO_COLOR: '1', PATH: `${bin}:${process.env.PATH}` });

    const lines = fencedCommandLines('Quick start');
    it('lists commands to run', () => expect(lines.length).toBeGreaterThanOrEqual(3));
    for (const line of lines) {
      it(`runs: ${line}`, async () => {
        const { stdout } = await run('bash', ['-c', line], { env: environment() });
        expect(stdout.trim().length).toBeGreaterThan(0);
      });
    }
  });
});
