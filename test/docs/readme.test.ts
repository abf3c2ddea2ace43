import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { REFERENCE_END, REFERENCE_START, renderCliReference } from '../../src/cli/reference.js';
import { cliEnv, startServe, type ServeChild } from '../cli/run-cli.js';

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

  describe('the commands of the quick start, connecting clients and scripting sections', () => {
    let home: string;
    let bin: string;
    let serve: ServeChild;
    beforeAll(async () => {
      home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-readme-'));
      // `svc-router` on PATH as a newcomer has it after `npm link`: the built CLI.
      bin = path.join(home, 'bin');
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(bin, 'svc-router'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(root, 'bin/svc-router.js')}" "$@"\n`, { mode: 0o755 });
      // The quick start's first terminal: serve (which issues the key); the others find it through its state file.
      serve = await startServe(home, ['--port', '0', '--quiet']);
    });
    afterAll(async () => {
      await serve.kill();
      fs.rmSync(home, { recursive: true, force: true });
    });

    const environment = () => ({ ...cliEnv(home), PATH: `${bin}:${process.env.PATH}` });

    for (const section of ['Quick start', 'Connecting clients', 'Scripting']) {
      const lines = fencedCommandLines(section);
      it(`${section}: lists commands to run`, () => expect(lines.length).toBeGreaterThanOrEqual(3));
      for (const line of lines) {
        it(`${section}: ${line}`, async () => {
          // The README names the default address; this serve took a free port.
          const command = line.replaceAll('http://127.0.0.1:8787', serve.origin);
          const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
            execFile('bash', ['-c', command], { env: environment(), cwd: home }, (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
          });
          expect(result.stdout.trim().length, result.stderr).toBeGreaterThan(0);
          // doctor exits with its number of failed checks, which depends on this machine (is 8787 free?).
          if (/\bdoctor\b/.test(command)) expect(result.code).toBeLessThan(100);
          else expect(result.code, result.stderr).toBe(0);
          if (/--json/.test(command)) for (const json of result.stdout.trim().split(/\n(?=[{[])/)) expect(() => JSON.parse(json)).not.toThrow();
        });
      }
    }
  });
});
