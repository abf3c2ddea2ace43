/**
 * svc-router's server, built from dist/ as `svc-router serve --quiet` builds it (no request log,
 * no metrics), plus an event-loop delay histogram the parent reads over IPC (the router exposes
 * no such metric).
 *
 * Run as its own process with an IPC channel: `node router-with-eld.js <dist dir>`, with
 * SVC_ROUTER_HOME set. Prints `READY <port>`; answers {type:'reset'} by clearing the histogram,
 * {type:'report'} with {type:'eld', p50_ms, p99_ms, max_ms}, and {type:'memory'} with
 * {type:'memory', heap_used, rss} after a full collection when run with --expose-gc.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const distDir = process.argv[2];
if (!distDir || !process.send) throw new Error('usage: router-with-eld <dist dir> (spawned with an IPC channel)');

const load = (file: string) => import(pathToFileURL(path.join(distDir, file)).href);
const { ConfigStore } = await load('config/store.js');
const { createApp } = await load('handlers/app.js');
const { createHttpServer } = await load('server/http-server.js');

const app = createApp({ config: new ConfigStore() });
const server: Server = createHttpServer(app);
const RESOLUTION_MS = 10;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
delay.enable();

// The histogram records whole timer intervals; the delay is what exceeds the timer's period.
const ms = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
process.on('message', (message: { type?: string }) => {
  if (message.type === 'reset') delay.reset();
  if (message.type === 'memory') {
    (globalThis as { gc?: () => void }).gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    process.send!({ type: 'memory', heap_used: heapUsed, rss });
  }
  if (message.type === 'report') {
    process.send!({ type: 'eld', p50_ms: ms(delay.percentile(50)), p99_ms: ms(delay.percentile(99)), max_ms: ms(delay.max) });
  }
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => app.close().then(() => process.exit(0)));
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
