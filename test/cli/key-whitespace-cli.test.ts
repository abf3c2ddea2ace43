import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { configFile, initHome, makeHome, removeHome, runCli, startServe } from './run-cli.js';

/**
 * The CLI's key, from --key, SVC_ROUTER_KEY or config.json, with white space in it: raw or
 * written out as an escape, it is refused with 401 as the router would, naming where the key
 * came from; commands that print or write the key refuse it before doing so.
 */

let router: TestRouter;
beforeAll(async () => {
  router = await startRouter();
});
afterAll(() => router.close());

const homes: string[] = [];
afterEach(() => homes.splice(0).forEach(removeHome));

async function home(): Promise<{ home: string; key: string }> {
  const dir = makeHome();
  homes.push(dir);
  return { home: dir, key: await initHome(dir) };
}

describe('a key with white space given to the CLI', () => {
  for (const [what, suffix] of [
    ['a percent-encoded space', '%20'],
    ['an escaped newline written out', '\\n'],
    ['an escaped no-break space written out', '\\u00a0'],
  ] as const) {
    it(`--key with ${what}: a warning naming --key, then the router's 401, in-process and over HTTP`, async () => {
      const { home: dir, key } = await home();
      const local = await runCli(['whoami', '--key', `${key}${suffix}`], { home: dir });
      expect(local.code).toBe(1);
      expect(local.stderr).toMatch(/warning: the key given with --key holds whitespace written out as an escape/);
      expect(local.stderr).toMatch(/401: Invalid API key: it contains whitespace written out as an escape/);

      const remote = await runCli(['whoami', '--base-url', router.baseURL, '--key', `${router.key}${suffix}`], { home: dir });
      expect(remote.code).toBe(1);
      expect(remote.stderr).toMatch(/401: Invalid API key: it contains whitespace written out as an escape/);
    });
  }

  it('SVC_ROUTER_KEY ending in a carriage return (a CRLF .env file): refused before sending, naming the variable', async () => {
    const { home: dir } = await home();
    const result = await runCli(['whoami', '--base-url', router.baseURL], { home: dir, env: { SVC_ROUTER_KEY: `${router.key}\r` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/warning: the key in SVC_ROUTER_KEY holds whitespace/);
    expect(result.stderr).toMatch(/401: Invalid API key: it contains whitespace/);
  });

  it('a stored key with a trailing no-break space: whoami, env, connect, doctor and serve all say so, naming config.json', async () => {
    const { home: dir } = await home();
    const config = JSON.parse(fs.readFileSync(configFile(dir), 'utf8'));
    config.localKey = `${config.localKey}\u00a0`;
    fs.writeFileSync(configFile(dir), JSON.stringify(config), { mode: 0o600 });

    const whoami = await runCli(['whoami'], { home: dir });
    expect(whoami.code).toBe(1);
    expect(whoami.stderr).toContain(`warning: the stored key (localKey in ${configFile(dir)}) holds whitespace`);
    expect(whoami.stderr).toMatch(/401: Invalid API key: it contains whitespace/);

    const env = await runCli(['env'], { home: dir });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain(`the stored key (localKey in ${configFile(dir)}) holds whitespace`);
    expect(env.stdout).toBe('');

    const connect = await runCli(['connect', 'claude'], { home: dir });
    expect(connect.code).toBe(2);
    expect(connect.stderr).toContain('no trailing whitespace');

    const doctor = await runCli(['doctor', '--json', '--base-url', 'http://127.0.0.1:9/v1'], { home: dir });
    const key = JSON.parse(doctor.stdout).checks.find((check: { id: string }) => check.id === 'key');
    expect(key).toMatchObject({ status: 'fail' });
    expect(key.message).toMatch(/trailing whitespace/);

    const serve = await startServe(dir, ['--port', '0']);
    try {
      await serve.waitForLine(/^export SVC_ROUTER_KEY=/);
      expect(serve.stderr()).toContain(`the stored key (localKey in ${configFile(dir)}) holds whitespace: clients given it are refused (401)`);
    } finally {
      await serve.kill();
    }
  });
});
