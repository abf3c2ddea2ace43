import type { IncomingMessage } from 'node:http';
import { RouterError, invalidRequest } from '../core/errors.js';

/** Reads a JSON body no larger than `limit` bytes: 413 past it, 400 when it is not JSON. */
export async function readJsonBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  if (size === 0) throw invalidRequest('The request body is empty; send a JSON object.', 'body');
  const text = Buffer.concat(chunks, size).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`The request body is not valid JSON: ${(error as Error).message}`, 'body', 'invalid_json');
  }
}

const tooLarge = (limit: number): RouterError =>
  new RouterError(413, 'too_large', `The request body is larger than the limit of ${limit} bytes (config key server.bodyLimitBytes).`, 'body', 'request_too_large');
