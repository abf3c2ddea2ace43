import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIChatUpstream, type OpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { callRouter, initHome, makeHome, readConfig, removeHome, runCliJson, startServe, type ServeChild } from './run-cli.js';

/**
 * Several routers sharing one declarative file: two real `serve` processes with separate homes
 * read one file, accept the keys it lists, and follow its edits on the very next request (each
 * read compares the file's stamp, so there is nothing to wait for). A broken edit changes nothing.
 */
describe('two routers reading one declarative file', () => {
  const UPSTREAM_KEY = 'upstream-key-for-the-shared-file-test-0123456789';
  const homes: string[] = [];
  const routers: ServeChild[] = [];
  let upstream: OpenAIChatUpstream;
  let file: string;
  let aliceKey: string;
  let keys: Record<string, unknown>;

  /** Replaces the file in one step, as an editor's save or a deploy does. */
  const writeFile = (config: unknown, text = `${JSON.stringify(config, null, 2)}\n`) => {
    fs.writeFileSync(`${file}.tmp`, text);
    fs.renameSync(`${file}.tmp`, file);
  };
  const shared = (routes: Record<string, string[]>) => ({
    backends: { team: { type: 'openai-chat', baseUrl: upstream.url, apiKeyEnv: 'TEAM_UPSTREAM_KEY' } },
    routes,
    keys,
  });
  const chat = (router: ServeChild) =>
    callRouter(router.origin, aliceKey, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'hi' }] });

  beforeAll(async () => {
    upstream = await startOpenAIChatUpstream(() => ({ text: 'from the team upstream' }), { apiKey: UPSTREAM_KEY });
    const keyHome = makeHome();
    homes.push(keyHome);
    aliceKey = await initHome(keyHome);
    // The key records (hashes only) travel in the file; neither router's home has issued them.
    keys = (await runCliJson<{ keys: Record<string, unknown> }>(['config', 'export', '--with-keys'], { home: keyHome })).keys;
    file = path.join(keyHome, 'team.svc-router.json');
    writeFile(shared({ 'svc.intelligent-pro': ['offline'] }));
    for (let i = 0; i < 2; i++) {
      const home = makeHome();
      homes.push(home);
      routers.push(await startServe(home, ['--port', '0', '--config', file], { TEAM_UPSTREAM_KEY: UPSTREAM_KEY }));
    }
  });

  afterAll(async () => {
    await Promise.all(routers.map((router) => router.kill()));
    await upstream?.close();
    homes.forEach(removeHome);
  });

  it('both accept the keys the file lists and route as it says', async () => {
    for (const router of routers) {
      const { status, json } = await chat(router);
      expect(status).toBe(200);
      expect(json.svc_meta.backend).toBe('offline');
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('both follow an edit of the file on their next request, and say so', async () => {
    writeFile(shared({ 'svc.intelligent-pro': ['team:gpt-4o'] }));
    for (const router of routers) {
      const { status, json } = await chat(router);
      expect(status).toBe(200);
      expect(json.svc_meta.backend).toBe('team');
      expect(json.choices[0].message.content).toBe('from the team upstream');
      expect(router.stderr()).toMatch(/reloaded .*team\.svc-router\.json \(1 backend\(s\), 1 route\(s\)\)/);
    }
    expect(upstream.requests.map((request) => request.body.model)).toEqual(['gpt-4o', 'gpt-4o']);
  });

  it('keep the version in force when an edit is not valid, naming its line and column', async () => {
    const broken = JSON.stringify(shared({ 'svc.intelligent-pro': ['team:gpt-4o', 'teem:gpt-4o'] }), null, 2);
    writeFile(undefined, broken);
    const line = broken.split('\n').findIndex((text) => text.includes('teem:gpt-4o')) + 1;
    for (const router of routers) {
      const { status, json } = await chat(router);
      expect(status).toBe(200);
      expect(json.svc_meta.backend).toBe('team');
      expect(router.stderr()).toContain(`routes.svc.intelligent-pro[1] at line ${line}, column 7: unknown backend "teem" (did you mean "team"?)`);
      expect(router.stderr()).toMatch(/previous version stays in force/);
    }
  });

  it('stop accepting a key the file no longer lists, while each keeps its own local key', async () => {
    keys = {};
    writeFile(shared({ 'svc.intelligent-pro': ['team:gpt-4o'] }));
    for (const [index, router] of routers.entries()) {
      expect((await chat(router)).status).toBe(401);
      const localKey = readConfig(homes[index + 1]!)!.localKey as string;
      const own = await callRouter(router.origin, localKey, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'hi' }] });
      expect(own.status).toBe(200);
    }
  });
});
