import WebSocket from 'ws';
import { socketUrl } from '../../backends/openai-responses/socket/socket-pool.js';
import type { Settings } from '../../config/settings.js';
import type { BackendFinding } from './backend-checks.js';
import { pass, skip, warn, type CheckResult } from './result.js';

/**
 * For each backend with `websocket: true`: whether its upstream takes the upgrade to WebSocket
 * mode with the key its own check proved. Opening the socket sends no `response.create`, so it
 * costs nothing. A refusal is a warning, not a failure: the router sends those turns over HTTP.
 */
export async function checkSocketUpstreams(settings: Settings, findings: ReadonlyMap<string, BackendFinding>, timeoutMs: number): Promise<CheckResult[]> {
  const named = Object.entries(settings.backends).filter(([, backend]) => backend.websocket === true && backend.type === 'openai-responses');
  return Promise.all(
    named.map(async ([name, backend]) => {
      const id = `backend:${name}:websocket`;
      const finding = findings.get(name);
      if (!finding?.usable || finding.key === null) return skip(id, 'not checked: the backend itself did not pass');
      const headers = { ...backend.headers, ...(finding.key ? { authorization: `Bearer ${finding.key}` } : {}) };
      const outcome = await upgrade(socketUrl(backend.baseUrl), headers, timeoutMs);
      if (outcome.ok) return pass(id, `takes WebSocket mode (upgraded in ${outcome.ms} ms): streamed turns go over one socket per session`);
      return warn(id, `does not take WebSocket mode (${outcome.detail}): streamed turns go over HTTP`, `Point the backend at an upstream that serves WebSocket mode, or turn it off: websocket: false (docs/performance.md).`);
    }),
  );
}

function upgrade(url: string, headers: Record<string, string>, timeoutMs: number): Promise<{ ok: true; ms: number } | { ok: false; detail: string }> {
  const started = performance.now();
  const ws = new WebSocket(url, { headers, perMessageDeflate: false, handshakeTimeout: timeoutMs });
  return new Promise((resolve) => {
    ws.on('error', (error) => resolve({ ok: false, detail: error.message.slice(0, 200) }));
    ws.once('open', () => {
      resolve({ ok: true, ms: Math.round(performance.now() - started) });
      ws.close();
    });
    ws.once('unexpected-response', (request, response) => {
      resolve({ ok: false, detail: `the upgrade was answered HTTP ${response.statusCode}` });
      response.resume();
      request.destroy();
    });
  });
}
