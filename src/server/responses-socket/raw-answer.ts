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
}
