import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { initHome, makeHome, removeHome, runCli, runCliJson, startServe, type ServeChild } from './run-cli.js';

const SKUS = ['svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite'];

const homes: string[] = [];
const freshHome = (): string => {
  const home = makeHome();
  homes.push(home);
  return home;
};

let home: string;
let key: string;

beforeAll(async () => {
  home = freshHome();
  key = await initHome(home, ['--developer', 'alice', '--org', 'acme', '--tier', 'pro', '--cap', '1000']);
});
afterAll(() => homes.forEach(removeHome));

describe('whoami in-process, with the stored key', () => {
  it('--json gives the identity and usage against the cap', async () => {
    const result = await runCli(['whoami', '--json'], { home });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body).toMatchObject({ object: 'identity', developer: 'alice', organisation: 'acme', tier: 'pro' });
    expect(body.usage).toMatchObject({ window_days: 30, cap_tokens: 1000, tokens_used: 0, requests: 0, remaining_tokens: 1000 });
    expect(Number.isNaN(Date.parse(body.usage.window_start))).toBe(false);
    expect(result.stdout).not.toContain(key);
  });

  it('prints a human summary', async () => {
    const result = await runCli(['whoami'], { home });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('alice · acme · tier pro');
    expect(lines[1]).toMatch(/^usage: [\d,]+ of 1,000 tokens \(\d+\.\d%\) in \d+ requests since \d{4}-\d{2}-\d{2}$/);
    expect(lines[2]).toMatch(/^remaining: [\d,]+ tokens$/);
    // Offline requests (if any) are free; an empty window costs nothing either.
    expect(lines[3]).toBe('cost: $0');
  });

  it('exits 2 with no key in the home', async () => {
    const result = await runCli(['whoami'], { home: freshHome() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no key/);
  });

  it('warns about a key with trailing whitespace, then fails with 401 (exit 1)', async () => {
    const result = await runCli(['whoami', '--key', `${key} `], { home });
    expect(result.stderr).toMatch(/warning:.*whitespace/);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/401: Invalid API key: it contains whitespace/);
  });

  it('SVC_ROUTER_KEY overrides the stored key', async () => {
    const result = await runCli(['whoami', '--json'], { home, env: { SVC_ROUTER_KEY: 'svc_alice_notTheRightKeyAtAllNotTheRightKeyAtAll' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/401/);
  });
});

describe('a key the router does not know, in-process', () => {
  const unknownKey = 'svc_alice_notTheRightKeyAtAllNotTheRightKeyAtAll';
  it.each([
    [['whoami'], 'whoami'],
    [['models'], 'models'],
    [['usage'], 'usage'],
    [['chat', 'hi'], 'chat'],
  ])('%j names the key sent and a way out other than itself', async (args, command) => {
    const fromEnv = await runCli(args, { home, env: { SVC_ROUTER_KEY: unknownKey } });
    expect(fromEnv.code, fromEnv.stderr).toBe(1);
    expect(fromEnv.stderr).toContain('401: Invalid API key: this router does not know the key in SVC_ROUTER_KEY (svc_alice_notT…)');
    expect(fromEnv.stderr).toContain('svc-router keys issue --developer SLUG');
    expect(fromEnv.stderr).not.toContain(`svc-router ${command} `);
    expect(fromEnv.stderr).not.toMatch(new RegExp(`svc-router ${command}\\b`));
    expect(fromEnv.stderr).not.toContain(unknownKey);
  });
});

describe('whoami over HTTP against an in-test router', () => {
  let router: TestRouter;
  let empty: string;

  beforeAll(async () => {
    router = await startRouter();
    empty = freshHome();
  });
  afterAll(() => router.close());

  it('--base-url and --key reach the router, from a home with no key of its own', async () => {
    const result = await runCli(['whoami', '--base-url', router.origin, '--key', router.key, '--json'], { home: empty });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ developer: 'alice', organisation: 'acme', tier: 'pro', usage: { requests: 0 } });
  });

  it('accepts the OpenAI-style base URL with /v1, and SVC_ROUTER_BASE_URL / SVC_ROUTER_KEY', async () => {
    const withV1 = await runCli(['whoami', '--base-url', router.baseURL, '--key', router.key, '--json'], { home: empty });
    expect(withV1.code).toBe(0);
    expect(JSON.parse(withV1.stdout).developer).toBe('alice');
    const fromEnv = await runCli(['whoami', '--json'], { home: empty, env: { SVC_ROUTER_BASE_URL: router.baseURL, SVC_ROUTER_KEY: router.key } });
    expect(fromEnv.code).toBe(0);
    expect(JSON.parse(fromEnv.stdout).developer).toBe('alice');
  });

  it('a wrong key exits 1, naming the router and the key sent, and what to use instead', async () => {
    const wrong = `${router.key.slice(0, -4)}${router.key.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const result = await runCli(['whoami', '--base-url', router.origin, '--key', wrong], { home: empty });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`401: Invalid API key: the router at ${router.origin} does not know the key given with --key (svc_alice_`);
    expect(result.stderr).toContain('that router did not issue it');
    // Never the command being run as the way out.
    expect(result.stderr).not.toContain('svc-router whoami');
  });

  it('a key with trailing whitespace: a warning, then exit 1 (401)', async () => {
    const result = await runCli(['whoami', '--base-url', router.origin, '--key', `${router.key} `], { home: empty });
    expect(result.stderr).toMatch(/warning:.*whitespace/);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/401/);
  });

  it('an unreachable router exits 4 (not 1, which is a refused request)', async () => {
    const closed = await startRouter();
    const origin = closed.origin;
    await closed.close();
    const result = await runCli(['whoami', '--base-url', origin, '--key', router.key], { home: empty });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^svc-router: cannot reach .*svc-router status/);
  });
});

describe('whoami over HTTP against a child serve', () => {
  let serveHome: string;
  let serveKey: string;
  let server: ServeChild;
  let empty: string;

  beforeAll(async () => {
    serveHome = freshHome();
    serveKey = await initHome(serveHome, ['--developer', 'erin', '--org', 'initech', '--tier', 'gold']);
    server = await startServe(serveHome);
    empty = freshHome();
  });
  afterAll(() => server.kill());

  it('reports the identity of the key', async () => {
    const result = await runCli(['whoami', '--base-url', server.origin, '--key', serveKey, '--json'], { home: empty });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ developer: 'erin', organisation: 'initech', tier: 'gold' });
  });

  it('a wrong key exits 1 with the server message', async () => {
    const result = await runCli(['whoami', '--base-url', server.origin, '--key', 'svc_erin_wrongwrongwrongwrongwrongwrongwrong'], { home: empty });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/401: Invalid API key/);
  });

  it('a key with trailing whitespace: a warning, then exit 1 (401)', async () => {
    const result = await runCli(['whoami', '--base-url', server.origin, '--key', `${serveKey} `], { home: empty });
    expect(result.stderr).toMatch(/warning:.*whitespace/);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/401/);
  });
});

describe('models', () => {
  it('--json lists exactly the three SKUs', async () => {
    const result = await runCli(['models', '--json'], { home });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.object).toBe('list');
    expect(body.data.map((model: { id: string }) => model.id)).toEqual(SKUS);
  });

  it('prints one id per line without --json', async () => {
    const result = await runCli(['models'], { home });
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toEqual(SKUS);
  });
});

describe('chat', () => {
  it('takes the prompt from the arguments (--json)', async () => {
    const result = await runCli(['chat', 'hello', 'world', '--json'], { home });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe('svc.intelligent-basic');
    expect(body.choices[0].message.content).toContain('hello world');
    expect(body.svc_meta).toMatchObject({ sku: 'svc.intelligent-basic', backend: 'offline' });
    expect(body.svc_meta.request_id).toMatch(/^req_/);
  });

  it('takes the prompt from standard input', async () => {
    const result = await runCli(['chat'], { home, input: 'from stdin\n' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('from stdin');
  });

  it('--stream prints the text', async () => {
    const result = await runCli(['chat', '--stream', 'stream me'], { home });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('stream me');
    expect(result.stdout).not.toContain('data:');
    expect(result.stdout.endsWith('\n')).toBe(true);
  });

  it('--model, --system and --max-tokens are sent', async () => {
    const result = await runCli(['chat', '--model', 'svc.intelligent-lite', '--system', 'be brief', '--max-tokens', '5', 'cut me short', '--json'], { home });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body.model).toBe('svc.intelligent-lite');
    expect(body.choices[0].finish_reason).toBe('length');
    expect(body.usage.completion_tokens).toBeLessThanOrEqual(5);
  });

  it('each chat is recorded: whoami counts the requests', async () => {
    const before = (await runCliJson(['whoami', '--json'], { home })).usage.requests as number;
    expect((await runCli(['chat', 'count me'], { home })).code).toBe(0);
    const after = await runCliJson(['whoami', '--json'], { home });
    expect(after.usage.requests).toBe(before + 1);
    expect(after.usage.tokens_used).toBeGreaterThan(0);
  });

  it('--model gpt-4o exits 1 with the 400 message', async () => {
    const result = await runCli(['chat', '--model', 'gpt-4o', 'hi'], { home });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/400: The model 'gpt-4o' is not served here/);
  });

  it('empty standard input exits 2', async () => {
    const result = await runCli(['chat'], { home, input: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no prompt/);
    const blank = await runCli(['chat'], { home, input: '   \n' });
    expect(blank.code).toBe(2);
  });

  it('--max-tokens 0 exits 2', async () => {
    const result = await runCli(['chat', '--max-tokens', '0', 'hi'], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--max-tokens/);
  });

  it('over HTTP against an in-test router, streamed and not', async () => {
    const router = await startRouter();
    try {
      const empty = freshHome();
      const plain = await runCli(['chat', '--base-url', router.baseURL, '--key', router.key, 'over the wire'], { home: empty });
      expect(plain.code).toBe(0);
      expect(plain.stdout).toContain('over the wire');
      const streamed = await runCli(['chat', '--stream', '--base-url', router.origin, '--key', router.key, 'streamed over the wire'], { home: empty });
      expect(streamed.code).toBe(0);
      expect(streamed.stdout).toContain('streamed over the wire');
      const wrong = await runCli(['chat', '--model', 'gpt-4o', '--base-url', router.origin, '--key', router.key, 'hi'], { home: empty });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/400: The model 'gpt-4o'/);
    } finally {
      await router.close();
    }
  });

  it('past the usage cap, exits 1 with the 429 message', async () => {
    const capped = freshHome();
    // Room for the first prompt's input (a request larger than what is left is refused), not for its answer too.
    await initHome(capped, ['--developer', 'frank', '--cap', '10']);
    expect((await runCli(['chat', 'first'], { home: capped })).code).toBe(0);
    const result = await runCli(['chat', 'second'], { home: capped });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/429: Usage cap reached/);
  });
});
