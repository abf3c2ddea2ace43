/**
 * A router as its own process, for tests that SIGKILL it: `node --import tsx router-process.ts
 * <home> <usage store>`. Serves on a free port of 127.0.0.1 and prints `listening <port>` once ready.
 */
import type { AddressInfo } from 'node:net';
import { ConfigStore } from '../../src/config/store.js';
import { createApp } from '../../src/handlers/app.js';
import { createHttpServer } from '../../src/server/http-server.js';

const [home, usageStore] = process.argv.slice(2);
if (!home || !usageStore) throw new Error('usage: router-process.ts <home> <usage store>');
const app = createApp({ config: new ConfigStore(home), usageStore });
const server = createHttpServer(app);
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void app.close().then(() => process.exit(0));
});
