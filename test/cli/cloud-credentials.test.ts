import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { unusedPort } from '../helpers/unused-port.js';
import { initHome, makeHome, removeHome, runCli, startServe, type ServeChild } from './run-cli.js';

/**
 * A backend that signs with cloud credentials (Vertex AI, Bedrock without an API key) shows
 * where they come from in `backends list`, and doctor fails it when it has none where the serve
 * runs: no key file, profile or variables, and no metadata endpoint that answers. "KEY none" and
 * "No problems found" both read as fine while every request fails with 502.
 */

interface Check {
  id: string;
  status: string;
  message: string;
  remedy?: string;
}

const homes: string[] = [];
const servers: ServeChild[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
  for (const close of closers.splice(0)) await close();
  homes.splice(0).forEach(removeHome);
});

/** No AWS or Google credentials anywhere, unless a case sets some. */
const BARE = {
  AWS_ACCESS_KEY_ID: undefined,
  AWS_SECRET_ACCESS_KEY: undefined,
  AWS_SESSION_TOKEN: undefined,
  AWS_PROFILE: undefined,
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: undefined,
  AWS_CONTAINER_CREDENTIALS_FULL_URI: undefined,
  AWS_EC2_METADATA_DISABLED: 'true',
  GOOGLE_APPLICATION_CREDENTIALS: undefined,
};

async function listening(): Promise<number> {
  const server = net.createServer((socket) => socket.destroy());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

async function home(): Promise<string> {
  const dir = makeHome();
  homes.push(dir);
  await initHome(dir);
  return dir;
}

async function setUp(dir: string, args: string[], env: Record<string, string | undefined>): Promise<void> {
  const added = await runCli(['backends', 'add', 'cloud', ...args], { home: dir, env });
  expect(added.code, added.stderr).toBe(0);
}

async function listed(dir: string, env: Record<string, string | undefined>): Promise<string> {
  const result = await runCli(['backends', 'list'], { home: dir, env });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.split('\n').find((line) => line.startsWith('cloud '))!;
}

async function doctorLine(dir: string, env: Record<string, string | undefined>): Promise<Check> {
  const result = await runCli(['doctor', '--json', '--timeout', '1000'], { home: dir, env, killAfterMs: 60_000 });
  return (JSON.parse(result.stdout) as { checks: Check[] }).checks.find((check) => check.id === 'backend:cloud')!;
}

describe('cloud credentials in backends list and doctor', () => {
  it('vertex without a key file, where no metadata server answers: shown as the metadata server, failed by doctor', async () => {
    const dir = await home();
    const closed = await unusedPort();
    const env = { ...BARE, GCE_METADATA_HOST: `127.0.0.1:${closed}` };
    await setUp(dir, ['--type', 'vertex', '--project', 'acme', '--region', 'us-east5'], env);
    const line = await listed(dir, env);
    expect(line).toContain(`google: the metadata server (127.0.0.1:${closed}), if it answers`);
    expect(line).not.toMatch(/\bnone\b/);
    const check = await doctorLine(dir, env);
    expect(check.status).toBe('fail');
    expect(check.message).toContain('vertex: no Google credentials here: no credentials file (--credentials, $GOOGLE_APPLICATION_CREDENTIALS), and the metadata server');
    expect(check.remedy).toContain('--credentials FILE');
  });

  it('vertex with a key file that is no service account: doctor names the file and what is wrong', async () => {
    const dir = await home();
    const file = path.join(dir, 'not-an-account.json');
    fs.writeFileSync(file, JSON.stringify({ type: 'authorized_user' }));
    const env = { ...BARE, GOOGLE_APPLICATION_CREDENTIALS: file };
    await setUp(dir, ['--type', 'vertex', '--project', 'acme', '--region', 'us-east5'], env);
    expect(await listed(dir, env)).toContain(`google: service-account file ${file} ($GOOGLE_APPLICATION_CREDENTIALS)`);
    const check = await doctorLine(dir, env);
    expect(check).toMatchObject({ status: 'fail', message: expect.stringContaining(`the Google credentials file ${file} is not a service-account key`) });
  });

  it('vertex whose metadata server answers: credentials named, the backend checked by its connection', async () => {
    const dir = await home();
    const [metadata, upstream] = await Promise.all([listening(), listening()]);
    const env = { ...BARE, GCE_METADATA_HOST: `127.0.0.1:${metadata}` };
    await setUp(dir, ['--type', 'vertex', '--project', 'acme', '--region', 'us-east5', '--base-url', `http://127.0.0.1:${upstream}`], env);
    const check = await doctorLine(dir, env);
    expect(check.status, check.message).toBe('pass');
    expect(check.message).toContain(`credentials: the metadata server (127.0.0.1:${metadata}), not proven`);
  });

  it('bedrock with no AWS credentials, or a profile that does not exist: failed by doctor, never a crash', async () => {
    const dir = await home();
    await setUp(dir, ['--type', 'bedrock', '--region', 'us-east-1'], BARE);
    expect(await listed(dir, BARE)).toContain('aws: none usable');
    const none = await doctorLine(dir, BARE);
    expect(none.status).toBe('fail');
    expect(none.message).toContain('bedrock: no AWS credentials here: none in the environment, no AWS profile, and instance metadata is off');
    expect(none.remedy).toContain('AWS_ACCESS_KEY_ID');

    await setUp(dir, ['--type', 'bedrock', '--region', 'us-east-1', '--aws-profile', 'nope'], BARE);
    const missing = await doctorLine(dir, BARE);
    expect(missing.status).toBe('fail');
    expect(missing.message).toContain("the AWS profile 'nope' is in neither the shared credentials nor the config file");
  });

  it('bedrock judged by the running serve’s environment: keys in this shell only do not count', async () => {
    const dir = await home();
    await setUp(dir, ['--type', 'bedrock', '--region', 'us-east-1'], BARE);
    const serve = await startServe(dir, ['--port', '0', '--quiet'], BARE);
    servers.push(serve);
    const shell = { ...BARE, AWS_ACCESS_KEY_ID: ['AKIA', 'IOSFODNN7', 'EXAMPLE'].join(''), AWS_SECRET_ACCESS_KEY: 'shell-only-value' };
    expect(await listed(dir, shell)).toContain('aws: none usable');
    const check = await doctorLine(dir, shell);
    expect(check.status).toBe('fail');
    expect(check.message).toContain(`no AWS credentials where the running serve (pid ${serve.child.pid}) runs`);
    expect(check.remedy).toContain('svc-router restart');
  });
});
