import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { initialise } from '../src/cli/commands/init.js';
import { ConfigStore } from '../src/config/store.js';

/** Which router model reaches which backend (see routes below). */
export const MODELS = {
  'openai-chat': 'svc.intelligent-basic',
  anthropic: 'svc.intelligent-pro',
  'openai-responses': 'svc.bench-responses',
  /** openai-chat backend whose upstream streams one chunk every 100 ms */
  slow: 'svc.intelligent-lite',
} as const;

/** The memory test's routes: a normal stream, a 50 MiB answer, a stream with one 16 MiB event. */
export const BIG_MODELS = { small: 'svc.bench-small', answer: 'svc.bench-big-answer', event: 'svc.bench-big-event' } as const;

export interface RouterHome {
  dir: string;
  /** the local developer's key */
  key: string;
  remove(): void;
}

/**
 * A fresh SVC_ROUTER_HOME: a local key with a cap the bench cannot reach, and backends `oa`
 * (openai-chat), `an` (anthropic) and `or` (openai-responses) on the fake upstream. With no upstream, only the key.
 */
export function createRouterHome(upstreamOrigin?: string): RouterHome {
  return createHome({ initialise, ConfigStore }, upstreamOrigin);
}

interface HomeCode {
  initialise: typeof initialise;
  ConfigStore: typeof ConfigStore;
}

/**
 * The same home, written by another build's own code (`dist` of a baseline worktree), so a router
 * of another version reads a config in the shape it knows.
 */
export async function createRouterHomeFrom(dist: string, upstreamOrigin?: string): Promise<RouterHome> {
  const init = (await import(pathToFileURL(path.join(dist, 'cli', 'commands', 'init.js')).href)) as { initialise: typeof initialise };
  const store = (await import(pathToFileURL(path.join(dist, 'config', 'store.js')).href)) as { ConfigStore: typeof ConfigStore };
  return createHome({ initialise: init.initialise, ConfigStore: store.ConfigStore }, upstreamOrigin);
}

function createHome(code: HomeCode, upstreamOrigin?: string): RouterHome {
  const { initialise, ConfigStore } = code;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-bench-'));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    return { dir, key: configure(new ConfigStore(dir), initialise, upstreamOrigin), remove };
  } catch (error) {
    remove();
    throw error;
  }
}

function configure(config: ConfigStore, initialise: HomeCode['initialise'], upstreamOrigin?: string): string {
  const { key } = initialise(config, { developer: 'bench', org: 'bench', tier: 'pro', cap: String(Number.MAX_SAFE_INTEGER) });
  if (upstreamOrigin) {
    config.update((settings) => {
      settings.backends.oa = { type: 'openai-chat', baseUrl: `${upstreamOrigin}/v1`, apiKey: 'sk-bench-openai' };
      settings.backends.an = { type: 'anthropic', baseUrl: upstreamOrigin, apiKey: 'sk-ant-bench' };
      settings.backends.slow = { type: 'openai-chat', baseUrl: `${upstreamOrigin}/slow/v1`, apiKey: 'sk-bench-openai' };
      settings.routes[MODELS['openai-chat']] = ['oa:m'];
      settings.routes[MODELS.anthropic] = ['an:m'];
      settings.backends.or = { type: 'openai-responses', baseUrl: `${upstreamOrigin}/v1`, apiKey: 'sk-bench-openai' };
      settings.routes[MODELS['openai-responses']] = ['or:m'];
      settings.routes[MODELS.slow] = ['slow:m'];
      settings.backends.big = { type: 'openai-chat', baseUrl: `${upstreamOrigin}/big/v1`, apiKey: 'sk-bench-openai' };
      settings.backends.bigevent = { type: 'openai-chat', baseUrl: `${upstreamOrigin}/bigevent/v1`, apiKey: 'sk-bench-openai' };
      settings.routes[BIG_MODELS.small] = ['oa:m'];
      settings.routes[BIG_MODELS.answer] = ['big:m'];
      settings.routes[BIG_MODELS.event] = ['bigevent:m'];
    });
  }
  return key;
}
