import { afterEach, describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/cli/loopback.js';
import { initHome, makeHome, removeHome, startServe, type ServeChild } from './run-cli.js';

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.0.0.2', '127.1.2.3', '127.255.255.254', '127.1', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:127.0.0.2', '::ffff:7f00:1', 'localhost', 'LocalHost', 'localhost.'])(
    '%s is loopback',
    (host) => expect(isLoopbackHost(host)).toBe(true),
  );

  it.each(['0.0.0.0', '::', '', '192.168.1.10', '10.0.0.1', '128.0.0.1', '126.255.255.255', '::2', '::ffff:10.0.0.1', 'fe80::1', 'example.com', 'localhost.example.com', '127.0.0.1.example.com', '1270.0.0.1'])(
    '%s is not loopback',
    (host) => expect(isLoopbackHost(host)).toBe(false),
  );
});

describe('serve --host: the "reachable from other machines" warning', () => {
  const homes: string[] = [];
  const servers: ServeChild[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.kill()));
    homes.splice(0).forEach(removeHome);
  });

  /** Everything serve wrote to stderr from start to a clean SIGTERM exit. */
  async function serveStderr(host: string): Promise<{ origin: string; stderr: string }> {
    const home = makeHome();
    homes.push(home);
    await initHome(home);
    const server = await startServe(home, ['--host', host, '--port', '0', '--quiet']);
    servers.push(server);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    return { origin: server.origin, stderr: server.stderr() };
  }

  it.each(['127.0.0.2', 'localhost'])('is not given for %s, which is loopback', async (host) => {
    const { stderr } = await serveStderr(host);
    expect(stderr).not.toContain('reachable from other machines');
  });

  it('is given for 0.0.0.0, which every interface reaches', async () => {
    const { origin, stderr } = await serveStderr('0.0.0.0');
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stderr).toContain('listening on 0.0.0.0, reachable from other machines');
  });
});
