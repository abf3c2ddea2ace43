import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initialise } from '../../src/cli/commands/init.js';
import { ConfigStore } from '../../src/config/store.js';
import { createApp, type App } from '../../src/handlers/app.js';
import { createHttpServer } from '../../src/server/http-server.js';
import { OUTBOX_DIR } from '../../src/usage/open-ledger.js';
import { tempHome } from '../helpers/router.js';
import { unusedPort } from '../helpers/unused-port.js';
import {
  addRoutes,
  asksForStream,
  bodyFor,
  callFormat,
  chatCompletionBody,
  CLIENT_FORMATS,
  closingFrames,
  openingFrames,
  startEventStream,
  startFaultUpstream,
  UPSTREAM_KINDS,
  type FaultUpstream,
  type UpstreamKind,
} from './support.js';

/** Each upstream kind behind its own SKU, so every client format meets every kind (translated and forwarded as is). */
const SKUS: Record<UpstreamKind, string> = {
  'openai-chat': 'svc.intelligent-pro',
  anthropic: 'svc.intelligent-basic',
  'openai-responses': 'svc.intelligent-lite',
  gemini: 'svc.outbox-gemini',
};

/** A complete non-streamed reply of each upstream kind. */
function replyBody(kind: UpstreamKind): Record<string, unknown> {
  switch (kind) {
    case 'openai-chat':
      return chatCompletionBody('Hello');
    case 'anthropic':
      return { id: 'msg_fault', type: 'message', role: 'assistant', model: 'upstream-model', content: [{ type: 'text', text: 'Hello' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 11, output_tokens: 5 } };
    case 'openai-responses':
      return {
        id: 'resp_fault',
        object: 'response',
        status: 'completed',
        model: 'upstream-model',
        output: [{ id: 'msg_fault', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello', annotations: [] }] }],
        usage: { input_tokens: 11, output_tokens: 5, total_tokens: 16 },
      };
    case 'gemini':
      return {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Hello' }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 5, totalTokenCount: 16 },
        modelVersion: 'upstream-model',
        responseId: 'gemini-fault',
      };
  }
}

describe('the Redis ledger writes a record to its outbox before the answer carrying its usage leaves', () => {
  let home: string;
  let upstream: FaultUpstream;
  let app: App;
  let server: http.Server;
  let origin: string;
  let key: string;
  /** What was on disk at the moment each svc_meta was handed to a socket: request id → in the outbox then. */
  const seenAtWrite = new Map<string, boolean>();
  const { writeHead, write, end } = http.ServerResponse.prototype;
  const requestIds = new WeakMap<http.ServerResponse, string>();

  const outboxIds = (): Set<string> => {
    const dir = path.join(home, OUTBOX_DIR);
    const ids = new Set<string>();
    for (const file of fs.readdirSync(dir)) {
      for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) if (line) ids.add(JSON.parse(line).requestId);
    }
    return ids;
  };
  /**
   * Called with every chunk a response hands to its socket, before it does. A chunk tells the client
   * its usage when it carries svc_meta, or (a Messages stream) the message_delta with the final usage.
   */
  const inspect = (res: http.ServerResponse, chunk: unknown) => {
    const id = requestIds.get(res);
    if (!id || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    if (text.includes('"svc_meta"') || text.includes('event: message_delta')) seenAtWrite.set(id, (seenAtWrite.get(id) ?? true) && outboxIds().has(id));
  };

  beforeAll(async () => {
    home = tempHome();
    upstream = await startFaultUpstream();
    const config = new ConfigStore(home);
    key = initialise(config, { developer: 'ordered', org: 'acme', tier: 'pro', cap: '1000000000' }).key;
    addRoutes(
      { config },
      UPSTREAM_KINDS.map((kind) => ({ sku: SKUS[kind], backend: `fault-${kind}`, type: kind, baseUrl: upstream.url, upstreamModel: `model-${kind}` })),
    );
    for (const kind of UPSTREAM_KINDS) {
      upstream.serve(`model-${kind}`, async (call) => {
        const { res } = call;
        if (!asksForStream(call)) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(replyBody(kind)));
          return;
        }
        // Two writes, so the router's last batch (the one that records) is not its first.
        startEventStream(res);
        res.write(openingFrames(kind));
        await new Promise((resolve) => setImmediate(resolve));
        res.end(closingFrames(kind));
      });
    }
    // Redis is down throughout: every record stays in the outbox, so what is there can be read.
    app = createApp({ config, usageStore: `redis://127.0.0.1:${await unusedPort()}` });
    server = createHttpServer(app);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    http.ServerResponse.prototype.writeHead = function (this: http.ServerResponse, status: number, ...rest: unknown[]) {
      const headers = rest.find((value) => typeof value === 'object' && value !== null) as Record<string, unknown> | undefined;
      if (typeof headers?.['x-request-id'] === 'string') requestIds.set(this, headers['x-request-id']);
      return (writeHead as (...args: unknown[]) => http.ServerResponse).call(this, status, ...rest);
    } as typeof writeHead;
    http.ServerResponse.prototype.write = function (this: http.ServerResponse, chunk: unknown, ...rest: unknown[]) {
      inspect(this, chunk);
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof write;
    http.ServerResponse.prototype.end = function (this: http.ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      inspect(this, chunk);
      return (end as (...args: unknown[]) => http.ServerResponse).call(this, chunk, ...rest);
    } as typeof end;
  });
  afterAll(async () => {
    http.ServerResponse.prototype.writeHead = writeHead;
    http.ServerResponse.prototype.write = write;
    http.ServerResponse.prototype.end = end;
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
    await upstream?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('for every client format, upstream kind, streamed or not', async () => {
    const cases = CLIENT_FORMATS.flatMap((format) => UPSTREAM_KINDS.flatMap((kind) => [false, true].map((stream) => ({ format, kind, stream }))));
    const answered: string[] = [];
    for (const { format, kind, stream } of cases) {
      const reply = await callFormat({ origin, key }, format, bodyFor(format, SKUS[kind], stream, `ordered ${format} ${kind}`));
      expect(reply.status, `${format} ${kind} ${stream}: ${reply.text}`).toBe(200);
      const id = reply.headers.get('x-request-id');
      expect(id).toMatch(/^req_/);
      answered.push(id!);
    }
    expect(new Set(answered).size).toBe(cases.length);
    // Each answer's svc_meta went to the socket only once its record was on disk.
    expect(Object.fromEntries(answered.map((id) => [id, seenAtWrite.get(id)]))).toEqual(Object.fromEntries(answered.map((id) => [id, true])));
  });
});
