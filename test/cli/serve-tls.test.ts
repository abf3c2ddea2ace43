import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_UNREACHABLE } from '../../src/cli/cli-error.js';
import { makeTestCa, type TestCa } from '../helpers/test-ca.js';
import { unusedPort } from '../helpers/unused-port.js';
import { initHome, makeHome, removeHome, ROOT, runCli, runCliJson, startServe, type ServeChild } from './run-cli.js';

let ca: TestCa;
beforeAll(() => {
  ca = makeTestCa();
});
afterAll(() => ca.remove());

const homes: string[] = [];
const servers: ServeChild[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
  homes.splice(0).forEach(removeHome);
});

async function tlsServe(extra: string[] = []): Promise<{ home: string; key: string; serve: ServeChild }> {
  const home = makeHome();
  homes.push(home);
  const key = await initHome(home);
  const serve = await startServe(home, ['--port', '0', '--tls-cert', ca.cert, '--tls-key', ca.key, ...extra]);
  servers.push(serve);
  return { home, key, serve };
}

/**
 * Runs an ES module in a fresh Node, from the repository (so the SDKs resolve), trusting the test
 * CA only as a user would: through NODE_EXTRA_CA_CERTS. Resolves with its stdout, parsed as JSON.
 */
function runNode(source: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', source], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every format, plain and streamed, through the official SDKs; prints what each got. */
const SDK_SCRIPT = `
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
const origin = process.env.ORIGIN;
const openai = new OpenAI({ baseURL: origin + '/v1', apiKey: process.env.KEY, maxRetries: 0 });
const anthropic = new Anthropic({ baseURL: origin, apiKey: process.env.KEY, maxRetries: 0 });
const out = {};
const chat = await openai.chat.completions.create({ model: 'svc.intelligent-basic', messages: [{ role: 'user', content: 'hi' }] });
out.chat = chat.choices[0].message.content;
let streamed = '';
for await (const chunk of await openai.chat.completions.create({ model: 'svc.intelligent-basic', messages: [{ role: 'user', content: 'hi' }], stream: true })) streamed += chunk.choices[0]?.delta?.content ?? '';
out.chatStream = streamed;
const response = await openai.responses.create({ model: 'svc.intelligent-lite', input: 'hi' });
out.responses = response.output_text;
const message = await anthropic.messages.create({ model: 'svc.intelligent-pro', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
out.messages = message.content.map((block) => block.text ?? '').join('');
const final = await anthropic.messages.stream({ model: 'svc.intelligent-pro', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
out.messagesStream = final.content.map((block) => block.text ?? '').join('');
process.stdout.write(JSON.stringify(out));
`;

describe('serve --tls-cert/--tls-key', () => {
  it('the official OpenAI and Anthropic SDKs, trusting the test CA, speak every format over HTTPS', async () => {
    const { key, serve } = await tlsServe();
    expect(serve.origin).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    await serve.waitForLine(new RegExp(`^export OPENAI_BASE_URL=${serve.origin.replace(/\./g, '\\.')}/v1$`));

    const run = await runNode(SDK_SCRIPT, { ORIGIN: serve.origin, KEY: key, NODE_EXTRA_CA_CERTS: ca.caCert });
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as Record<string, string>;
    for (const name of ['chat', 'chatStream', 'responses', 'messages', 'messagesStream']) {
      expect(out[name], name).toEqual(expect.any(String));
      expect(out[name]!.length, name).toBeGreaterThan(0);
    }
    // A plain and a streamed answer from the same offline backend say the same.
    expect(out.chatStream).toBe(out.chat);
    expect(out.messagesStream).toBe(out.messages);
  }, 60_000);

  it('a client that does not trust the CA is refused the connection, and the CLI names the fix', async () => {
    const { home, serve } = await tlsServe();
    const sdk = await runNode(SDK_SCRIPT, { ORIGIN: serve.origin, KEY: 'unused', NODE_EXTRA_CA_CERTS: '' });
    expect(sdk.code).not.toBe(0);
    expect(sdk.stderr).toMatch(/Connection error|certificate/i);

    const whoami = await runCli(['whoami', '--base-url', serve.origin], { home });
    // No TLS connection could be made: the CLI's "unreachable", not a refused request.
    expect(whoami.code).toBe(EXIT_UNREACHABLE);
    expect(whoami.stderr).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    expect(whoami.stderr).toContain('NODE_EXTRA_CA_CERTS');

    const trusted = await runCli(['whoami', '--base-url', serve.origin, '--json'], { home, env: { NODE_EXTRA_CA_CERTS: ca.caCert } });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(JSON.parse(trusted.stdout)).toMatchObject({ developer: 'alice' });
  }, 60_000);

  it('env, connect, status and doctor name the https:// address of the running serve', async () => {
    const { home, serve } = await tlsServe();
    const env = await runCli(['env'], { home });
    expect(env.stdout).toContain(`export OPENAI_BASE_URL=${serve.origin}/v1\n`);
    expect(env.stdout).toContain(`export ANTHROPIC_BASE_URL=${serve.origin}\n`);

    const connect = await runCli(['connect', 'codex'], { home });
    expect(connect.stdout).toContain(`base_url = "${serve.origin}/v1"`);

    const status = await runCliJson(['status', '--json'], { home });
    expect(status).toMatchObject({ running: true, url: serve.origin, tls: { cert: ca.cert, key: ca.key } });

    const doctor = await runCli(['doctor', '--json'], { home, env: { NODE_EXTRA_CA_CERTS: ca.caCert } });
    const report = JSON.parse(doctor.stdout) as { base_url: string; checks: Array<{ id: string; status: string; message: string }> };
    expect(report.base_url).toBe(`${serve.origin}/v1`);
    expect(report.checks.find((check) => check.id === 'whoami')).toMatchObject({ status: 'pass' });

    const untrusted = await runCli(['doctor', '--json'], { home });
    const whoami = (JSON.parse(untrusted.stdout) as { checks: Array<{ id: string; status: string; remedy?: string }> }).checks.find((check) => check.id === 'whoami');
    expect(whoami).toMatchObject({ status: 'fail' });
    expect(whoami!.remedy).toContain('NODE_EXTRA_CA_CERTS');
  }, 60_000);

  it('server.tls in the config serves HTTPS without flags, and the configured address is https:// while nothing runs', async () => {
    const home = makeHome();
    homes.push(home);
    await initHome(home);
    expect((await runCli(['config', 'set', 'server.tls.cert', ca.cert], { home })).code).toBe(0);
    expect((await runCli(['config', 'set', 'server.tls.key', ca.key], { home })).code).toBe(0);
    expect((await runCli(['config', 'set', 'server.port', '9443'], { home })).code).toBe(0);
    const env = await runCli(['env'], { home });
    expect(env.stdout).toContain('export OPENAI_BASE_URL=https://127.0.0.1:9443/v1\n');

    const port = await unusedPort();
    expect((await runCli(['config', 'set', 'server.port', String(port)], { home })).code).toBe(0);
    const serve = await startServe(home, []);
    servers.push(serve);
    expect(serve.origin).toBe(`https://127.0.0.1:${port}`);
    // doctor's serve-port check speaks HTTPS to the configured port: svc-router, once the CA is trusted.
    const servePort = async (env: Record<string, string>) =>
      (JSON.parse((await runCli(['doctor', '--json'], { home, env })).stdout) as { checks: Array<{ id: string; status: string; message: string; remedy?: string }> }).checks.find(
        (check) => check.id === 'serve-port',
      );
    expect(await servePort({ NODE_EXTRA_CA_CERTS: ca.caCert })).toMatchObject({ status: 'pass', message: `127.0.0.1:${port}: svc-router is serving there` });
    const untrusted = await servePort({});
    expect(untrusted).toMatchObject({ status: 'fail' });
    expect(untrusted!.message).toContain('certificate this machine does not trust');
    expect(untrusted!.remedy).toContain('NODE_EXTRA_CA_CERTS');

    expect((await runCli(['config', 'set', 'server.tls.cert', ''], { home })).stdout).toContain('server.tls.cert = ');
    expect((await runCli(['env'], { home })).stdout).toContain(`export OPENAI_BASE_URL=${serve.origin}/v1`);
    expect((await runCli(['config', 'get', 'server.tls.key'], { home })).stdout.trim()).toBe('');
  }, 120_000);

  it('refuses half a pair, a missing file, a file that is not PEM and a key that is not the certificate’s, naming each', async () => {
    const home = makeHome();
    homes.push(home);
    await initHome(home);
    const cases: Array<[string[], RegExp]> = [
      [['--tls-cert', ca.cert], /--tls-cert and --tls-key go together: --tls-key is missing/],
      [['--tls-key', ca.key], /--tls-cert is missing/],
      [['--tls-cert', `${ca.dir}/nope.pem`, '--tls-key', ca.key], /--tls-cert: cannot read .*nope\.pem: ENOENT/],
      [['--tls-cert', ca.key, '--tls-key', ca.key], /--tls-cert: .* holds no PEM certificate/],
      [['--tls-cert', ca.cert, '--tls-key', ca.otherKey], /cannot serve TLS together: .*key values mismatch/],
    ];
    for (const [flags, message] of cases) {
      const result = await runCli(['serve', '--port', '0', ...flags], { home });
      expect(result.code, flags.join(' ')).toBe(2);
      expect(result.stderr, flags.join(' ')).toMatch(message);
      expect(fs.existsSync(`${home}/serve.json`)).toBe(false);
    }
    const half = await runCli(['config', 'set', 'server.tls.cert', ca.cert], { home });
    expect(half.code).toBe(0);
    const refused = await runCli(['serve', '--port', '0'], { home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('server.tls needs both cert and key');
  }, 60_000);
});
