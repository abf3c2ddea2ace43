import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * An HTTP answer written straight to a socket that asked to upgrade and was refused: nothing
 * upgrades, the JSON body says why, and the connection closes once it is sent.
 */
export function answerOnSocket(socket: Duplex, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(text)}`,
    'cache-control: no-store',
    'connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  if (!socket.writable) return void socket.destroy();
  socket.end(`${lines.join('\r\n')}\r\n\r\n${text}`);
  // Whatever the client still sends is read and dropped (closing on unread data could reset the
  // answer away); a client that never closes its side is let go after a second.
  socket.resume();
  socket.once('end', () => socket.destroy());
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

const LINGER_MS = 1_000;
