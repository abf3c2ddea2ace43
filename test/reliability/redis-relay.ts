import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';

export interface RedisRelay {
  url: string;
  /**
   * From now on Redis's answers are held back while the commands still reach it: to the client,
   * as to a router whose writes were in flight when it was killed, nothing is confirmed, though
   * Redis applied what was sent first.
   */
  swallowReplies(): void;
  close(): void;
}

/** A TCP relay in front of a Redis on `port`, passing bytes both ways until told otherwise. */
export async function startRedisRelay(port: number): Promise<RedisRelay> {
  let swallow = false;
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (!swallow) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  return {
    url: `redis://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    swallowReplies: () => {
      swallow = true;
    },
    close() {
      relay.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
