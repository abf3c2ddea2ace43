import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { confConfigDirectory } from '../../src/config/conf-location.js';
import { ConfigStore } from '../../src/config/store.js';

/**
 * config.json is where conf has always put it. serve asks conf (conf-location.ts); the quick
 * commands work the place out themselves (loading conf costs each its schema validator), so each
 * answer is held to conf's own, on each platform conf knows.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const LOCATION = path.join(ROOT, 'src/config/config-location.ts');
const CONF_LOCATION = path.join(ROOT, 'src/config/conf-location.ts');

interface Case {
  platform: string;
  dir?: string;
  env: Record<string, string | undefined>;
}

/** Runs the cases in a child whose HOME is a scratch directory (conf creates the directories it names). */
function bothAnswers(cases: Case[], scratch: string): Array<{ ours: string; conf: string }> {
  const script = `
    import path from 'node:path';
    import { configFilePath } from ${JSON.stringify(LOCATION)};
    // What serve asks conf itself.
    import { confConfigDirectory } from ${JSON.stringify(CONF_LOCATION)};
    // Relative homes are taken from the working directory: the scratch one, once the imports are found.
    process.chdir(process.env.SCRATCH);
    const answers = [];
    for (const { platform, dir, env } of JSON.parse(process.env.CASES)) {
      Object.defineProperty(process, 'platform', { value: platform, configurable: true });
      for (const [name, value] of Object.entries(env)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      answers.push({ ours: configFilePath(dir), conf: path.join(await confConfigDirectory(dir), 'config.json') });
    }
    process.stdout.write(JSON.stringify(answers));
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { ...process.env, HOME: scratch, USERPROFILE: scratch, SCRATCH: scratch, CASES: JSON.stringify(cases) },
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as Array<{ ours: string; conf: string }>;
}

let scratch: string;
beforeEach(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-location-'));
});
afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('where config.json lives', () => {
  it("is where conf puts it, whatever the platform, the home given and the platform's variables", () => {
    const segment = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,7}$/);
    const where = fc.oneof(
      fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => path.join(...parts)),
      fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => path.join(scratch, 'abs', ...parts)),
    );
    const unsetOrEmptyOr = (value: fc.Arbitrary<string>) => fc.option(fc.oneof(fc.constant(''), value), { nil: undefined });
    const cases = fc.sample(
      fc.record({
        platform: fc.constantFrom('linux', 'darwin', 'win32', 'freebsd'),
        dir: fc.option(where, { nil: undefined }),
        env: fc.record({ SVC_ROUTER_HOME: unsetOrEmptyOr(where), XDG_CONFIG_HOME: unsetOrEmptyOr(where), APPDATA: unsetOrEmptyOr(where) }),
      }),
      { numRuns: 200, seed: 29 },
    ) as Case[];
    // The platform's own directory, on each platform, is among them.
    expect(cases.some((one) => one.dir === undefined && !one.env.SVC_ROUTER_HOME && one.platform === 'darwin')).toBe(true);
    const answers = bothAnswers(cases, scratch);
    expect(answers).toHaveLength(cases.length);
    for (const [index, { ours, conf }] of answers.entries()) expect(ours, JSON.stringify(cases[index])).toBe(conf);
  });

  it('is made ready as conf made it: an absent file gets its directory, and an unreadable one fails as conf failed', async () => {
    const fresh = path.join(scratch, 'a', 'b');
    const store = new ConfigStore(fresh);
    expect(store.path).toBe(path.join(fresh, 'config.json'));
    expect(fs.statSync(fresh).isDirectory()).toBe(true);
    expect(fs.existsSync(store.path)).toBe(false);

    const blocked = path.join(scratch, 'blocked');
    fs.mkdirSync(path.join(blocked, 'config.json'), { recursive: true });
    const failure = (build: () => unknown) => {
      try {
        build();
      } catch (error) {
        return (error as NodeJS.ErrnoException).code;
      }
      return 'built';
    };
    const confs = await confConfigDirectory(blocked).then(() => 'built', (error: NodeJS.ErrnoException) => error.code);
    expect(confs).toBe('EISDIR');
    expect(failure(() => new ConfigStore(blocked))).toBe(confs);
  });
});
