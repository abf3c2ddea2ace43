import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { REFERENCE_END, REFERENCE_START, renderCliReference } from '../../src/cli/reference.js';
import { cliEnv, startServe, type ServeChild } from '../cli/run-cli.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addBackend, SKU, setRoute, startUpstream, UPSTREAM_KINDS, type UpstreamKind } from '../integration/support.js';

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
  it('Quick start: shows the quick tier and the whole suite, each with its time, after what the whole suite needs', () => {
    const start = readme.indexOf('## Quick start\n');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const line = (command: string) => section.split('\n').find((text) => text.startsWith(`${command} `)) ?? '';
    for (const command of ['npm run test:quick', 'npm test']) expect(line(command), command).toMatch(/\d+ minutes?\b/);
    const suite = section.indexOf('\nnpm test ');
    for (const needed of ['redis-server', 'chromium', 'cmake']) {
      expect(section.indexOf(needed), needed).toBeGreaterThan(-1);
      expect(section.indexOf(needed), needed).toBeLessThan(suite);
    }
  });

  it('links a CLI reference that matches the commander program exactly', () => {
    expect(readme).toContain('(docs/cli-reference.md)');
    const page = fs.readFileSync(path.join(root, 'docs/cli-reference.md'), 'utf8');
    const start = page.indexOf(REFERENCE_START);
    const end = page.indexOf(REFERENCE_END);
    expect(start, 'docs/cli-reference.md needs the cli-reference markers').toBeGreaterThan(-1);
    const documented = page.slice(start + REFERENCE_START.length, end).trim();
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

describe('README: what happens to media in requests', () => {
  let router: TestRouter;
  const fakes = new Map<UpstreamKind, FakeUpstream>();
  let mediaServer: http.Server;
  let fetched = 0;
  let imageUrl: string;
  let fileUrl: string;

  beforeAll(async () => {
    router = await startRouter();
    for (const kind of UPSTREAM_KINDS) {
      const fake = await startUpstream(kind, () => ({ text: 'Seen.' }));
      fakes.set(kind, fake);
      addBackend(router, `up-${kind}`, kind, fake.url);
    }
    // Where the URLs point: the router must never ask.
    mediaServer = http.createServer((_request, res) => {
      fetched++;
      res.end();
    });
    await new Promise<void>((resolve) => mediaServer.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(mediaServer.address() as AddressInfo).port}`;
    imageUrl = `${origin}/cat.png`;
    fileUrl = `${origin}/report.pdf`;
  });
  afterAll(async () => {
    await router.close();
    await Promise.all([...fakes.values()].map((fake) => fake.close()));
    await new Promise((resolve) => mediaServer.close(resolve));
  });

  /** Routes the SKU to one fake and returns what it will record. */
  function routeTo(kind: UpstreamKind): FakeUpstream {
    setRoute(router, SKU, [`up-${kind}`]);
    const fake = fakes.get(kind)!;
    fake.requests.splice(0);
    return fake;
  }

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${router.origin}${path}`, { method: 'POST', headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: response.status, json: (await response.json()) as any };
  };

  it.each(UPSTREAM_KINDS)('an image URL goes to a %s upstream as it is, never fetched by the router', async (kind) => {
    const fake = routeTo(kind);
    const reply = await post('/v1/chat/completions', { model: SKU, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: imageUrl } }] }] });
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    expect(JSON.stringify(fake.requests[0]!.body)).toContain(JSON.stringify(imageUrl));
    expect(fetched).toBe(0);
  });

  it.each(UPSTREAM_KINDS)('a file URL goes to a %s upstream that takes one, and a Chat upstream refuses it with a 400 naming the part', async (kind) => {
    const fake = routeTo(kind);
    const reply = await post('/v1/responses', { model: SKU, input: [{ role: 'user', content: [{ type: 'input_text', text: 'Summarise this.' }, { type: 'input_file', file_url: fileUrl }] }] });
    if (kind === 'openai-chat') {
      expect(reply.status).toBe(400);
      expect(reply.json.error.param).toMatch(/\[0\]\.content\[1\]$/);
      expect(reply.json.error.message).toMatch(/inline or by an OpenAI file id, not by URL/);
      expect(fake.requests).toHaveLength(0);
    } else {
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      expect(JSON.stringify(fake.requests[0]!.body)).toContain(JSON.stringify(fileUrl));
    }
    expect(fetched).toBe(0);
  });

  it('images in tool results reach a Chat upstream in one user message after the tool messages', async () => {
    const fake = routeTo('openai-chat');
    const reply = await post(
      '/v1/messages',
      {
        model: SKU,
        max_tokens: 64,
        messages: [
          { role: 'user', content: 'Take a screenshot.' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Taken.' }, { type: 'image', source: { type: 'url', url: imageUrl } }] }] },
        ],
      },
      { 'anthropic-version': '2023-06-01' },
    );
    expect(reply.status, JSON.stringify(reply.json)).toBe(200);
    const messages = fake.requests[0]!.body.messages as Array<{ role: string; content: unknown; tool_call_id?: string }>;
    const tool = messages.findIndex((message) => message.role === 'tool');
    expect(messages[tool]).toMatchObject({ role: 'tool', content: 'Taken.' });
    expect(messages[tool + 1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: `The result of tool call ${messages[tool]!.tool_call_id} includes this image:` },
        { type: 'image_url', image_url: { url: imageUrl } },
      ],
    });
    expect(fetched).toBe(0);
  });
});
