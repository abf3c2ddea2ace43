import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/** A port on 127.0.0.1 that nothing listens on: bound once, then released (free to take; refused to a client). */
export async function unusedPort(): Promise<number> {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A backend base URL where connections are refused. */
export const closedPortUrl = async (): Promise<string> => `http://127.0.0.1:${await unusedPort()}/v1`;
