import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface GatedUpstream {
  /** The fake's base URL, with this gate's origin in front: a backend of the fake's type points here. */
  url: string;
  /** Resolves once the first request's stream is held at the gate. */
  holding(): Promise<void>;
  /** Lets the held stream go on to its end. */
  release(): void;
  /** Resolves when the router closed the held stream before it was released (it let go of the upstream call). */
  abandoned(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Stands in front of a fake upstream of any type (test/fakes/) and holds the first request's
 * event stream at the first frame that carries `marker` (a piece of the scripted text): `before`
 * holds with only the frames ahead of it sent (the response has opened, no output yet), `after`
 * holds with that frame sent (output has started). Every other request passes straight through.
 * The fake records every request, so a test reads what reached the upstream from it.
 */
export async function startGatedUpstream(fakeUrl: string, marker: string, mode: 'before' | 'after'): Promise<GatedUpstream> {
  const target = new URL(fakeUrl);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let signalHolding!: () => void;
  const holdingNow = new Promise<void>((resolve) => (signalHolding = resolve));
  let signalAbandoned!: () => void;
  const abandonedNow = new Promise<void>((resolve) => (signalAbandoned = resolve));
  let requests = 0;
  let releasedYet = false;
  void released.then(() => (releasedYet = true));

  const server = http.createServer(async (req, res) => {
    const gated = requests++ === 0;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers });
    upstream.end(Buffer.concat(chunks));
    const [answer] = (await once(upstream, 'response')) as [http.IncomingMessage];
    res.on('error', () => undefined);
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    if (!gated) return void answer.pipe(res);
    let buffered = '';
    let passed = false;
    for await (const chunk of answer) {
      buffered += chunk.toString('utf8');
      if (passed) {
        res.write(buffered);
        buffered = '';
        continue;
      }
      // Whole frames only, so the gate falls between two of them.
      for (let end = frameEnd(buffered); end !== -1; end = frameEnd(buffered)) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end);
        if (!passed && frame.includes(marker)) {
          passed = true;
          if (mode === 'after') res.write(frame);
          signalHolding();
          await Promise.race([released, once(res, 'close')]);
          if (res.destroyed || !res.writable) {
            if (!releasedYet) signalAbandoned();
            answer.destroy();
            return;
          }
          if (mode === 'before') res.write(frame);
          continue;
        }
        res.write(frame);
      }
    }
    res.end(buffered);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}${target.pathname}`,
    holding: () => holdingNow,
    release,
    abandoned: () => abandonedNow,
    close: () => {
      release();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Where the first SSE frame of `text` ends (after its blank line), or -1 when none is whole yet. */
function frameEnd(text: string): number {
  const match = /\r?\n\r?\n/.exec(text);
  return match ? match.index + match[0].length : -1;
}
