import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAIResponsesSocketUpstream } from '../fakes/openai-responses-socket-upstream.js';
import { startRouter } from '../helpers/router.js';
import { runCli } from './run-cli.js';

/**
 * `doctor` asks each backend with `websocket: true` for the upgrade to WebSocket mode, with the key
 * its own check proved: taken, it passes; refused, it warns that turns go over HTTP (they still work).
 */

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('doctor on a backend with websocket: true', () => {
  it('passes an upstream that takes the upgrade and warns of one that refuses it', async () => {
    const taking = await startOpenAIResponsesSocketUpstream([{ text: 'OK' }], { apiKey: 'sk-resp-0123456789abcdef' });
    cleanups.push(() => taking.close());
    const refusing = await startOpenAIResponsesSocketUpstream([{ text: 'OK' }], { apiKey: 'sk-resp-0123456789abcdef', refuseUpgrade: 404 });
    cleanups.push(() => refusing.close());
    const router = await startRouter();
    cleanups.push(() => router.close());
    router.config.update((settings) => void (settings.server.port = Number(new URL(router.origin).port)));
    for (const [name, url] of [['ws-yes', taking.url], ['ws-no', refusing.url]] as const) {
      const added = await runCli(['backends', 'add', name, '--type', 'openai-responses', '--base-url', url, '--api-key', 'sk-resp-0123456789abcdef', '--websocket'], { home: router.home });
      expect(added.code).toBe(0);
    }
    expect(router.config.read().backends['ws-yes']).toMatchObject({ websocket: true });
    const elsewhere = await runCli(['backends', 'add', 'chat', '--type', 'openai-chat', '--base-url', taking.url, '--websocket'], { home: router.home });
    expect(elsewhere.code).not.toBe(0);
    expect(elsewhere.stderr).toContain('--websocket is for openai-responses backends only');
    const result = await runCli(['doctor', '--json', '--timeout', '2000', '--base-url', router.baseURL], { home: router.home });
    const report = JSON.parse(result.stdout) as { checks: Array<{ id: string; status: string; message: string }> };
    const check = (id: string) => report.checks.find((entry) => entry.id === id);
    expect(check('backend:ws-yes:websocket')).toMatchObject({ status: 'pass', message: expect.stringMatching(/takes WebSocket mode/) });
    expect(check('backend:ws-no:websocket')).toMatchObject({ status: 'warn', message: expect.stringMatching(/HTTP 404.*over HTTP/) });
    expect(taking.sockets).toBe(1);
    // Opening the socket asked the model nothing.
    expect(taking.turns).toEqual([]);
    expect(result.stdout).not.toContain('sk-resp-0123456789abcdef');
  }, 120_000);
});
