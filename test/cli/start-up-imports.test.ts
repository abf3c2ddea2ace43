import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initHome, makeHome, removeHome, ROOT, runCli, startServe, type ServeChild } from './run-cli.js';

/**
 * A command loads what it needs and no more: which modules a run loads is read from the process
 * itself (test/helpers/trace-module-loads.mjs), not from a clock. The heavy ones are the schema
 * validator and semver (conf's), the price table, the HTTP client, the completion path and the
 * policies it admits requests through.
 */

const TRACER = pathToFileURL(path.join(ROOT, 'test', 'helpers', 'trace-module-loads.mjs')).href;

/** Loads that only a command which prices, calls upstream or completes may make. */
const HEAVY = [
  /node_modules\/(conf|ajv|ajv-formats|semver|zod|undici|@pydantic\/genai-prices)\//,
  /dist\/handlers\/(completion|format-routes)\.js$/,
  /dist\/policies\//,
  /dist\/backends\/http\//,
];

let home: string;
let serve: ServeChild | undefined;

beforeEach(() => {
  home = makeHome();
});

afterEach(async () => {
  await serve?.kill();
  serve = undefined;
  removeHome(home);
});

const traceEnv = (file: string) => ({ NODE_OPTIONS: `--import=${TRACER}`, MODULE_TRACE: file });
const loaded = (file: string): string[] => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
const heavyIn = (modules: string[]): string[] => [...new Set(modules)].filter((module) => HEAVY.some((pattern) => pattern.test(module)));

describe('start-up', () => {
  it('an in-process whoami loads neither conf nor the price table, HTTP client, completion path or policies', async () => {
    await initHome(home);
    const trace = path.join(home, 'trace.txt');
    const result = await runCli(['whoami', '--json'], { home, env: traceEnv(trace) });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ developer: 'alice', organisation: 'acme', tier: 'pro' });
    const modules = loaded(trace);
    // The trace sees the command's own modules, so an empty list below means something.
    expect(modules.some((module) => module.endsWith('/dist/handlers/whoami.js'))).toBe(true);
    expect(heavyIn(modules)).toEqual([]);
  });

  it('--version loads nothing of the router', async () => {
    const trace = path.join(home, 'trace.txt');
    const result = await runCli(['--version'], { home, env: traceEnv(trace) });
    expect(result.code).toBe(0);
    const modules = loaded(trace);
    expect(modules.some((module) => module.endsWith('/bin/svc-router.js'))).toBe(true);
    expect(modules.filter((module) => module.includes('/dist/') || module.includes('/node_modules/'))).toEqual([]);
  });

  it('--help loads the command definitions but no command\'s own module; a command loads its own alone', async () => {
    await initHome(home);
    const helpTrace = path.join(home, 'help-trace.txt');
    const help = await runCli(['--help'], { home, env: traceEnv(helpTrace) });
    expect(help.code, help.stderr).toBe(0);
    const helpModules = loaded(helpTrace);
    expect(helpModules.some((module) => module.includes('/dist/cli/definitions/'))).toBe(true);
    expect(helpModules.filter((module) => module.includes('/dist/cli/commands/'))).toEqual([]);
    const whoamiTrace = path.join(home, 'whoami-trace.txt');
    const whoami = await runCli(['whoami', '--json'], { home, env: traceEnv(whoamiTrace) });
    expect(whoami.code, whoami.stderr).toBe(0);
    const commandModules = [...new Set(loaded(whoamiTrace).filter((module) => module.includes('/dist/cli/commands/')))];
    expect(commandModules.map((module) => module.replace(/^.*\/dist\/cli\/commands\//, ''))).toEqual(['quick-checks.js']);
  });

  it('serve has loaded the completion path and the price table before it says it listens', async () => {
    await initHome(home);
    const trace = path.join(home, 'trace.txt');
    serve = await startServe(home, ['--port', '0', '--quiet'], traceEnv(trace));
    const modules = loaded(trace);
    expect(modules.some((module) => module.endsWith('/dist/handlers/completion.js'))).toBe(true);
    expect(modules.some((module) => module.includes('/node_modules/@pydantic/genai-prices/'))).toBe(true);
  });
});
