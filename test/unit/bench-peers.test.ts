import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PATHS } from '../../bench/paths.js';
import { PEERS } from '../../bench/peers.js';
import { startServer, type Server } from '../../bench/processes.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('the peers', () => {
  it('each sits beside a router path that exists, to the openai-chat upstream', () => {
    expect(PEERS.map((peer) => [peer.name, peer.path])).toEqual([
      ['portkey', 'chat->openai-chat'],
      ['claude-code-router', 'messages->openai-chat'],
    ]);
    for (const peer of PEERS) expect(PATHS.some((spec) => spec.name === peer.path)).toBe(true);
  });

  it('claude-code-router gets a config of its own in a temporary HOME: one provider at the upstream, routed by default, no logs', () => {
    const ccr = PEERS.find((peer) => peer.name === 'claude-code-router')!;
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ccr-'));
    cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }));
    const env = ccr.prepare!(home, 40123, 'http://127.0.0.1:5555');
    expect(env.HOME).toBe(home);
    const config = JSON.parse(fs.readFileSync(path.join(home, '.claude-code-router', 'config.json'), 'utf8'));
    expect(config).toMatchObject({ LOG: false, HOST: '127.0.0.1', PORT: 40123, Router: { default: 'bench,m' } });
    expect(config.Providers).toEqual([expect.objectContaining({ name: 'bench', api_base_url: 'http://127.0.0.1:5555/v1/chat/completions', models: ['m'] })]);
    for (const stream of [false, true]) {
      const request = ccr.request('http://127.0.0.1:40123', 'http://127.0.0.1:5555', stream);
      expect(request.path).toBe('/v1/messages');
      expect(request.headers['anthropic-version']).toBeTruthy();
      expect(JSON.parse(request.body).stream === true).toBe(stream);
    }
  });
});

describe('a server that prints nothing when it listens', () => {
  it('is ready once its port accepts a connection', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    // It prints an unrelated line first, then listens after a few turns of its event loop.
    const script = `console.log('Loaded config'); setImmediate(() => require('node:http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1'));`;
    const server: Server = await startServer({ name: 'quiet server', command: [process.execPath, '-e', script], port });
    cleanups.push(() => server.stop());
    expect(server.origin).toBe(`http://127.0.0.1:${port}`);
    expect(await (await fetch(server.origin)).text()).toBe('ok');
  });
});
