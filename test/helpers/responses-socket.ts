import { once } from 'node:events';
import WebSocket from 'ws';
import type { TestRouter } from './router.js';

/** The events that end a turn on a Responses socket. */
const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error']);

export interface ResponsesSocket {
  ws: WebSocket;
  /** Sends one text message (an object goes as JSON). */
  send(message: unknown): void;
  /** Every event up to and including the next terminal one (response.completed/.failed/.incomplete or error). */
  turn(): Promise<any[]>;
  /** Sends a response.create (`type` added) and reads its events. */
  create(body: Record<string, unknown>): Promise<any[]>;
  /** Resolves with the close code once the socket has closed. */
  closed(): Promise<number>;
}

/** Opens a real WebSocket to the router's /v1/responses with the key as a bearer token (or the headers given). */
export async function openResponsesSocket(router: TestRouter, headers: Record<string, string> = { authorization: `Bearer ${router.key}` }): Promise<ResponsesSocket> {
  const ws = new WebSocket(`${router.origin.replace(/^http/, 'ws')}/v1/responses`, { headers });
  const inbox: any[] = [];
  let wake: (() => void) | undefined;
  const closedWith = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  ws.on('message', (data, isBinary) => {
    inbox.push(isBinary ? { binary: true } : JSON.parse(data.toString()));
    wake?.();
  });
  ws.on('close', () => wake?.());
  await once(ws, 'open');
  const next = async (): Promise<any> => {
    while (inbox.length === 0) {
      if (ws.readyState === WebSocket.CLOSED) throw new Error('the socket closed before the turn ended');
      await new Promise<void>((resolve) => (wake = resolve));
    }
    return inbox.shift();
  };
  const turn = async (): Promise<any[]> => {
    const events: any[] = [];
    for (;;) {
      const event = await next();
      events.push(event);
      if (TERMINAL.has(event.type)) return events;
    }
  };
  const send = (message: unknown) => ws.send(typeof message === 'string' || Buffer.isBuffer(message) ? message : JSON.stringify(message));
  return {
    ws,
    send,
    turn,
    create(body) {
      send({ type: 'response.create', ...body });
      return turn();
    },
    closed: () => closedWith,
  };
}

/** How an upgrade the router refused was answered: its status and JSON body. */
export async function refusedUpgrade(router: TestRouter, headers: Record<string, string>, path = '/v1/responses'): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const ws = new WebSocket(`${router.origin.replace(/^http/, 'ws')}${path}`, { headers });
  ws.on('error', () => undefined);
  const [, res] = (await Promise.race([once(ws, 'unexpected-response'), once(ws, 'open').then(() => [undefined, undefined])])) as [unknown, import('node:http').IncomingMessage | undefined];
  if (!res) {
    ws.terminate();
    throw new Error('the upgrade was accepted');
  }
  let text = '';
  for await (const chunk of res) text += chunk;
  return { status: res.statusCode ?? 0, body: JSON.parse(text), headers: res.headers };
}
