import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface HeldStreamUpstream {
  /** Base URL ending in /v1, for an `openai-chat` backend. */
  url: string;
  /** Resolves when a stream has sent its first chunk and is being held open. */
  holding(): Promise<void>;
  /** Lets every held stream finish (a stop chunk, usage, [DONE]). */
  release(): void;
  /** Resolves when the router closed a held stream before it was released (it let go of the upstream call). */
  abandoned(): Promise<void>;
  close(): Promise<void>;
}

const chunk = (body: object): string => `data: ${JSON.stringify({ id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1, model: 'held-model', ...body })}\n\n`;

/**
 * An OpenAI Chat upstream whose streams send one chunk and then wait until the test releases
 * them, so a test can look at the router while a stream is open, without timing anything.
 */
export async function startHeldStreamUpstream(): Promise<HeldStreamUpstream> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let signalHolding!: () => void;
  const holdingNow = new Promise<void>((resolve) => (signalHolding = resolve));
  let signalAbandoned!: () => void;
  const abandonedNow = new Promise<void>((resolve) => (signalAbandoned = resolve));
  let releasedYet = false;
  void released.then(() => (releasedYet = true));
  const server = http.createServer(async (req, res) => {
    for await (const _ of req) {
      // Drain the request body.
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    res.on('error', () => {});
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'held ' }, finish_reason: null }] }));
    signalHolding();
    await Promise.race([released, once(res, 'close')]);
    if (res.destroyed) {
      if (!releasedYet) signalAbandoned();
      return;
    }
    res.write(chunk({ choices: [{ index: 0, delta: { content: 'open' }, finish_reason: null }] }));
    res.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    res.write(chunk({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 } }));
    res.end('data: [DONE]\n\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    holding: () => holdingNow,
    release: () => release(),
    abandoned: () => abandonedNow,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
