import type { IncomingMessage } from 'node:http';
import { keepBodyText } from '../core/body-text.js';
import { RouterError, invalidRequest } from '../core/errors.js';
import { deadlines, type Deadline } from '../core/timer-wheel.js';

/** How long a body may take to arrive: `ms` in all, counted from `startedAt` (performance.now() when its headers arrived). */
export interface BodyDeadline {
  startedAt: number;
  ms: number;
}

/**
 * Reads a JSON body no larger than `limit` bytes: 413 past it, 400 when it is not JSON, 408 when it
 * has not all arrived by the deadline (a client trickling bytes holds a socket and a buffer).
 */
export async function readJsonBody(request: IncomingMessage, limit: number, deadline?: BodyDeadline): Promise<unknown> {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) throw tooLarge(limit);
  const raw = await collect(request, limit, deadline);
  if (raw.length === 0) throw invalidRequest('The request body is empty; send a JSON object.', 'body');
  const text = raw.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`The request body is not valid JSON: ${(error as Error).message}`, 'body', 'invalid_json');
  }
  keepBodyText(body, text, bodyMembers(body));
  return body;
}

/** Deeper JSON than any real request needs; refusing it keeps recursive decoders safe. */
export const MAX_DEPTH = 64;

/**
 * The object members of a parsed request body, which is refused (400 too_deep) when it nests
 * deeper than MAX_DEPTH: the one limit every way a body arrives meets (HTTP, a socket message).
 */
export function bodyMembers(body: unknown): number {
  const members = membersWithin(body, MAX_DEPTH);
  if (members === -1) throw invalidRequest(`The request body nests deeper than ${MAX_DEPTH} levels.`, 'body', 'too_deep');
  return members;
}

/**
 * The object members of a parsed JSON value, or -1 when it nests more than `levels` deep; stops at
 * the first path that does, so hostile input costs little.
 */
function membersWithin(value: unknown, levels: number): number {
  if (value === null || typeof value !== 'object') return 0;
  if (levels === 0) return -1;
  let members = 0;
  if (Array.isArray(value)) {
    for (const child of value) {
      const inner = membersWithin(child, levels - 1);
      if (inner === -1) return -1;
      members += inner;
    }
  } else {
    for (const key in value) {
      const inner = membersWithin((value as Record<string, unknown>)[key], levels - 1);
      if (inner === -1) return -1;
      members += inner + 1;
    }
  }
  return members;
}

/** The body's bytes, gathered with plain stream events (cheaper per request than an async iterator). */
function collect(request: IncomingMessage, limit: number, deadline: BodyDeadline | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timer: Deadline | undefined;
    const done = () => {
      timer?.cancel();
      request.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    if (deadline && !request.complete) {
      const remaining = Math.max(0, deadline.startedAt + deadline.ms - performance.now());
      timer = deadlines.after(remaining, () => {
        if (request.complete) return;
        done();
        reject(tooSlow(deadline.ms));
      });
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // Past the limit: stop keeping the bytes, let the rest drain, and answer 413.
      done();
      request.resume();
      reject(tooLarge(limit));
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      done();
      reject(invalidRequest(`The request body could not be read: ${error.message}`, 'body'));
    };
    const onClose = () => {
      if (request.complete) return;
      done();
      reject(invalidRequest('The client closed the connection before the body arrived.', 'body'));
    };
    request.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** The body did not arrive in time; the connection is closed after this answer. */
const tooSlow = (ms: number): RouterError =>
  new RouterError(408, 'invalid_request', `The request body did not arrive within ${ms} ms (config key server.bodyTimeoutMs).`, 'body', 'request_timeout');

const tooLarge = (limit: number): RouterError =>
  new RouterError(413, 'too_large', `The request body is larger than the limit of ${limit} bytes (config key server.bodyLimitBytes).`, 'body', 'request_too_large');
