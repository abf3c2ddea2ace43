import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '../../src/cli/commands/config.js';
import { declarativeSchema } from '../../src/config/declarative/schema.js';
import { whenApplied } from '../../src/config/settings-shape.js';
import { callRouter, initHome, makeHome, removeHome, runCli, startServe, type ServeChild } from './run-cli.js';

/**
 * `config set` on a running serve says when the change applies: a setting the serve reads only
 * when it starts (a property of the settings' shape) waits for `restart`, and says so; one its
 * own flag overrides says that; one read at each use applies at once, and nothing more is said.
 */

const alnum = (length: number): string => randomBytes(length * 2).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, length);

const homes: string[] = [];
const servers: ServeChild[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
  homes.splice(0).forEach(removeHome);
});

async function running(args: string[] = []): Promise<{ home: string; key: string; serve: ServeChild }> {
  const home = makeHome();
  homes.push(home);
  const key = await initHome(home);
  const serve = await startServe(home, ['--port', '0', '--quiet', ...args]);
  servers.push(serve);
  return { home, key, serve };
}

describe('config set on a running serve', () => {
  it('a setting read at start (server.ui) says restart, and is indeed not in force until then', async () => {
    const { home, key, serve } = await running();
    const result = await runCli(['config', 'set', 'server.ui', 'true'], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('server.ui = true\n');
    expect(result.stderr).toContain(`the running serve (pid ${serve.child.pid}) reads server.ui only when it starts: run svc-router restart to apply it`);
    // What it says is so: the dashboard is still off.
    const ui = await fetch(`${serve.origin}/ui`, { headers: { authorization: `Bearer ${key}` } });
    expect(ui.status).toBe(404);
  });

  it('a setting read at each use (guardrails.secrets) applies at once, and says nothing of restarting', async () => {
    const { home, key, serve } = await running();
    const result = await runCli(['config', 'set', 'guardrails.secrets', 'refuse'], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('restart');
    const refused = await callRouter(serve.origin, key, 'POST', '/v1/chat/completions', {
      model: 'svc.intelligent-pro',
      messages: [{ role: 'user', content: `AWS_ACCESS_KEY_ID=AKIA${alnum(16).toUpperCase()} token ghp_${alnum(36)}` }],
    });
    expect(refused.status).toBe(400);
  });

  it('a setting the serve’s own flag overrides (server.port under --port) names the flag', async () => {
    const { home, serve } = await running();
    const result = await runCli(['config', 'set', 'server.port', '9911'], { home });
    expect(result.stderr).toContain(`the running serve (pid ${serve.child.pid}) was started with --port, which takes the place of server.port`);
  });

  it('with no serve running, says nothing of one', async () => {
    const home = makeHome();
    homes.push(home);
    await initHome(home);
    const result = await runCli(['config', 'set', 'server.ui', 'true'], { home });
    expect(result.stderr).toBe('');
  });
});

describe('every config key', () => {
  it('is a settings field, and its help says "read when serve starts" exactly when the shape does', () => {
    for (const [name, key] of Object.entries(SETTING_KEYS)) {
      expect(key.describe.includes('read when serve starts'), name).toBe(whenApplied(name.split('.')).at === 'start');
    }
  });

  it('the declarative file’s schema says "read when serve starts" of the same fields', () => {
    const groups = declarativeSchema.shape;
    for (const group of ['server', 'usage'] as const) {
      const fields = groups[group].unwrap().shape as Record<string, { description?: string; unwrap?: () => { description?: string } }>;
      for (const [field, schema] of Object.entries(fields)) {
        const description = schema.description ?? schema.unwrap?.().description ?? '';
        expect(description.includes('read when serve starts'), `${group}.${field}: ${description}`).toBe(whenApplied([group, field]).at === 'start');
      }
    }
  });
});
