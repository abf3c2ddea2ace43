import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { ApiRequest, ApiResponse } from '../handlers/api.js';
import type { App } from '../handlers/app.js';
import { dispatch } from './dispatch.js';
import { readJsonBody } from './read-body.js';

/** node:http in front of dispatch: turns sockets into ApiRequests and ApiResponses into bytes. */
export function createHttpServer(app: App): http.Server {
  return http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    serve(app, req, res).catch(() => {
      // Only a failed socket write lands here; the client is gone, so there is nobody to tell.
      res.destroy();
    });
  });
}

async function serve(app: App, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const aborter = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) aborter.abort();
  });
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const request: ApiRequest = {
    method: req.method ?? 'GET',
    path: query === -1 ? url : url.slice(0, query),
    headers: req.headers as Record<string, string | undefined>,
    readBody: () => readJsonBody(req, app.config.read().server.bodyLimitBytes),
    signal: aborter.signal,
  };
  await writeResponse(res, await dispatch(app, request), request.method === 'HEAD');
}

async function writeResponse(res: ServerResponse, response: ApiResponse, headOnly: boolean): Promise<void> {
  if ('json' in response) {
    const body = JSON.stringify(response.json);
    res.writeHead(response.status, {
      ...response.headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(headOnly ? undefined : body);
    return;
  }
  if ('empty' in response) {
    res.writeHead(response.status, response.headers);
    res.end();
    return;
  }
  res.writeHead(response.status, {
    ...response.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  for await (const frame of response.sse) {
    if (res.destroyed) break;
    // Backpressure: a slow client pauses the stream instead of growing a buffer.
    if (!res.write(frame)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
  }
  res.end();
}
