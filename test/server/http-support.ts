import net from 'node:net';
import { expect } from 'vitest';
import type { TestRouter } from '../helpers/router.js';
import { send as sendGuarded, type Reply } from '../helpers/send.js';

/** Small request helpers and error-shape assertions shared by the server suites. */

export const CHAT_BODY = { model: 'svc.intelligent-basic', messages: [{ role: 'user', content: 'hi' }] };
export const RESPONSES_BODY = { model: 'svc.intelligent-basic', input: 'hi' };
export const MESSAGES_BODY = { model: 'svc.intelligent-basic', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
export const ANTHROPIC_VERSION = '2023-06-01';

export type { Reply };

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

export const messagesHeaders = (key: string, version: string = ANTHROPIC_VERSION): Record<string, string> => ({
  'x-api-key': key,
  'anthropic-version': version,
});

/** One HTTP request with fetch; an object body is sent as JSON (typed so unless a type is given), a string body as given. */
export function send(router: TestRouter, method: string, path: string, options: { headers?: Record<string, string>; body?: unknown } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  return sendGuarded(router, path, { method, headers, body: options.body });
}

/** Asserts the OpenAI error body exactly: `{"error":{"message","type","param","code"}}` and nothing else. */
export function expectOpenAIError(
  reply: Reply,
  status: number,
  expected: { type: string; code?: string | null; param?: string | null; message?: RegExp },
): void {
  expect(reply.status, reply.text).toBe(status);
  expect(Object.keys(reply.json)).toEqual(['error']);
  expect(Object.keys(reply.json.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(reply.json.error.type).toBe(expected.type);
  expect(typeof reply.json.error.message).toBe('string');
  expect(reply.json.error.message.length).toBeGreaterThan(0);
  if (expected.code !== undefined) expect(reply.json.error.code).toBe(expected.code);
  if (expected.param !== undefined) expect(reply.json.error.param).toBe(expected.param);
  if (expected.message) expect(reply.json.error.message).toMatch(expected.message);
}

/** Asserts the Anthropic error body exactly: `{"type":"error","error":{"type","message"},"request_id"}`. */
export function expectAnthropicError(reply: Reply, status: number, type: string, message?: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(Object.keys(reply.json).sort()).toEqual(['error', 'request_id', 'type']);
  expect(reply.json.type).toBe('error');
  expect(Object.keys(reply.json.error).sort()).toEqual(['message', 'type']);
  expect(reply.json.error.type).toBe(type);
  expect(typeof reply.json.error.message).toBe('string');
  expect(reply.json.error.message.length).toBeGreaterThan(0);
  expect(reply.json.request_id).toMatch(/^req_/);
  expect(reply.json.request_id).toBe(reply.headers.get('x-request-id'));
  if (message) expect(reply.json.error.message).toMatch(message);
}

export interface RawReply {
  status: number;
  head: string;
  body: string;
}

/**
 * Sends raw bytes on a fresh socket and reads until the server closes it (the request should
 * carry `Connection: close`). Used where a client library would not send the bytes as given.
 */
export function rawExchange(router: TestRouter, request: Buffer): Promise<RawReply> {
  const { hostname, port } = new URL(router.origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const head = split === -1 ? text : text.slice(0, split);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), head, body: split === -1 ? '' : text.slice(split + 4) });
    });
    socket.write(request);
  });
}

/** A GET request as raw bytes, with the given header lines (each without CRLF). */
export function rawGet(path: string, headerLines: Buffer[]): Buffer {
  const crlf = Buffer.from('\r\n', 'latin1');
  return Buffer.concat([
    Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n`, 'latin1'),
    ...headerLines.flatMap((line) => [line, crlf]),
    crlf,
  ]);
}
