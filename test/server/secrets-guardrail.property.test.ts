import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretsMode } from '../../src/config/settings.js';
import type { FakeUpstream, RecordedRequest } from '../fakes/fake-server.js';
import { openResponsesSocket } from '../helpers/responses-socket.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { send } from '../helpers/send.js';
import { addBackend, setRoute, SKU, startUpstream, UPSTREAM_KINDS, type UpstreamKind } from '../integration/support.js';

/**
 * The secrets guardrail reads every text the model will read, in the form the model reads it, as a
 * property over every client format, every backend type (forwarded or translated), streamed or
 * not, on every endpoint a prompt reaches an upstream by (completions, token counts, compaction,
 * the Responses WebSocket), and wherever in the request the secret is: a message, a message that
 * starts with `data:`, the system prompt, a tool's description, a tool call's arguments, a tool's
 * result, a plain-text document, a text file given inline as a data URL (base64 or percent-encoded).
 * The secrets are keys of known shapes and inline shell assignments (`DB_PASSWORD=… npm start`, as
 * coding agents write Bash calls). `refuse` answers 400 `guardrail_refused` in the client's own
 * format and sends nothing upstream; `mask` answers and sends no raw secret upstream, in any
 * encoding (base64 and data URLs in the upstream's body are read too).
 */

const CLIENTS = ['chat', 'responses', 'messages'] as const;
type Client = (typeof CLIENTS)[number];
const PATHS: Record<Client, string> = { chat: '/v1/chat/completions', responses: '/v1/responses', messages: '/v1/messages' };

/** How the request reaches the router: a completion (streamed or not), a token count, a compaction, a WebSocket turn. */
type Endpoint = 'completion' | 'stream' | 'count' | 'compact' | 'socket';
const ENDPOINTS: Record<Client, Endpoint[]> = {
  chat: ['completion', 'stream'],
  responses: ['completion', 'stream', 'count', 'compact', 'socket'],
  messages: ['completion', 'stream', 'count'],
};

/** Where in the request the secret is (`not-a-file`: in a file's field, but not a file's data: `data: AKIA…`). */
const PLACES = ['user', 'system', 'tool-description', 'tool-call', 'tool-result', 'text-document', 'base64-file', 'percent-file', 'not-a-file'] as const;
type Place = (typeof PLACES)[number];

/** A deterministic random run of `length` characters of `alphabet` (keys must look generated, as real ones are). */
function randomRun(alphabet: string, length: number, seed: number): string {
  let state = (seed * 2654435761) >>> 0 || 1;
  let out = '';
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out += alphabet[state % alphabet.length];
  }
  return out;
}
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The text put in the request and the raw values that must not reach the upstream. */
interface Secret {
  text: string;
  values: string[];
}

/** Keys of known shapes, as the repro wrote them. */
function keys(seed: number, prefix: string): Secret {
  const aws = `AKIA${randomRun(BASE32, 16, seed)}`;
  const github = `ghp_${randomRun(ALNUM, 36, seed + 1)}`;
  return { text: `${prefix}AWS_ACCESS_KEY_ID=${aws} token ${github}`, values: [aws, github] };
}

/** Inline shell assignments, as coding agents write Bash calls. */
const SHELL = [
  (pw: string) => `DB_PASSWORD=${pw} npm start`,
  (_: string, token: string) => `STRIPE_TOKEN=${token} ./deploy.sh`,
  (_: string, token: string) => `env MY_API_KEY=${token} node app.js`,
  (pw: string, token: string) => `NODE_ENV=production DB_PASSWORD=${pw} GITLAB_TOKEN=${token} PORT=3000 npm start`,
  (pw: string) => `DB_PASSWORD="${pw}" npm run migrate`,
  (pw: string) => `cd app && DB_PASSWORD='${pw}' npm test`,
  (pw: string, token: string) => `cat > .env <<'EOF'\nDB_PASSWORD=${pw}\nSENDGRID_API_KEY=${token}\nEOF\nnpm start`,
];

function shell(seed: number, template: number, prefix: string): Secret {
  const pw = `${randomRun(ALNUM, 10, seed)}9q`;
  const token = `${randomRun(ALNUM, 22, seed + 2)}7Q`;
  const text = SHELL[template]!(pw, token);
  return { text: `${prefix}${text}`, values: [pw, token].filter((value) => text.includes(value)) };
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The same conversation in each client's format, with `secret` at `place` (a harmless value everywhere else). */
function conversation(client: Client, place: Place, secret: string): Record<string, unknown> {
  const at = (here: Place, otherwise: string) => (place === here ? secret : otherwise);
  const system = at('system', 'Be brief.');
  const description = at('tool-description', 'Runs a shell command.');
  const command = at('tool-call', 'ls -la');
  const result = at('tool-result', 'ok');
  const user = at('user', 'Deploy the app, please.');
  const schema = { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] };
  const file = place === 'text-document' || place === 'base64-file' || place === 'percent-file' || place === 'not-a-file' ? place : undefined;
  const dataUrl =
    file === 'percent-file' ? `data:text/plain,${encodeURIComponent(secret)}` : file === 'not-a-file' ? `data: ${secret}` : `data:${file === 'base64-file' ? 'application/json' : 'text/plain'};base64,${b64(secret)}`;
  switch (client) {
    case 'chat':
      return {
        model: SKU,
        tools: [{ type: 'function', function: { name: 'run', description, parameters: schema } }],
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: [{ type: 'text', text: user }, ...(file ? [{ type: 'file', file: { filename: 'notes.txt', file_data: dataUrl } }] : [])] },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run', arguments: JSON.stringify({ command }) } }] },
          { role: 'tool', tool_call_id: 'call_1', content: result },
        ],
      };
    case 'responses':
      return {
        model: SKU,
        instructions: system,
        tools: [{ type: 'function', name: 'run', description, parameters: schema }],
        input: [
          { role: 'user', content: [{ type: 'input_text', text: user }, ...(file ? [{ type: 'input_file', filename: 'notes.txt', file_data: dataUrl }] : [])] },
          { type: 'function_call', call_id: 'call_1', name: 'run', arguments: JSON.stringify({ command }) },
          { type: 'function_call_output', call_id: 'call_1', output: result },
        ],
      };
    case 'messages': {
      // A plain-text document, or a text file in base64 (the percent-encoded form is a data URL, which Messages has not).
      // Not a file: an image whose base64 data is text.
      const source = file === 'text-document' || file === 'percent-file' ? { type: 'text', media_type: 'text/plain', data: secret } : { type: 'base64', media_type: 'text/plain', data: b64(secret) };
      const attached = file === 'not-a-file' ? { type: 'image', source: { type: 'base64', media_type: 'image/png', data: `data: ${secret}` } } : { type: 'document', title: 'notes.txt', source };
      return {
        model: SKU,
        max_tokens: 64,
        system,
        tools: [{ name: 'run', description, input_schema: schema }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: user }, ...(file ? [attached] : [])] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'run', input: { command } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: result }] },
        ],
      };
    }
  }
}

const headersFor = (client: Client, key: string): Record<string, string> =>
  client === 'messages' ? { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' } : { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

/**
 * Everything an upstream received, as text, with what it holds encoded read out too: each data URL
 * and each run of base64 decoded, each percent-encoding undone. A secret sent in any of these forms is found.
 */
function revealed(request: RecordedRequest): string {
  const text = `${request.path}\n${typeof request.body === 'string' ? request.body : JSON.stringify(request.body)}`;
  const decoded: string[] = [text];
  for (const [run] of text.matchAll(/[A-Za-z0-9+/_-]{16,}={0,2}/g)) decoded.push(Buffer.from(run, 'base64').toString('utf8'));
  for (const [encoded] of text.matchAll(/(?:%[0-9A-Fa-f]{2}|[^\s"%\\])+/g)) {
    try {
      decoded.push(decodeURIComponent(encoded));
    } catch {
      // Not percent-encoding.
    }
  }
  return decoded.join('\n');
}

let router: TestRouter;
const upstreams = {} as Record<UpstreamKind, FakeUpstream>;

beforeAll(async () => {
  router = await startRouter({ capTokens: 1e12 });
  for (const kind of UPSTREAM_KINDS) {
    upstreams[kind] = await startUpstream(kind, [{ text: 'done', usage: { input: 50, output: 2 } }]);
    addBackend(router, kind, kind, upstreams[kind].url);
  }
});

afterAll(async () => {
  await Promise.all(Object.values(upstreams).map((upstream) => upstream.close()));
  await router.close();
});

interface Outcome {
  status: number;
  /** The error body in the client's format: Anthropic's `{type: "error", error}`, OpenAI's `{error}`, the socket's `error` event. */
  body?: { type?: string; error?: { type?: string; code?: string; message?: string } };
  /** Every upstream request this exchange made, of every fake. */
  received: RecordedRequest[];
  text: string;
}

async function exchange(client: Client, endpoint: Endpoint, kind: UpstreamKind, body: Record<string, unknown>, mode: SecretsMode): Promise<Outcome> {
  router.config.update((settings) => {
    settings.guardrails.secrets = mode;
    settings.routes[SKU] = [`${kind}:upstream-model`];
  });
  const before = UPSTREAM_KINDS.map((each) => upstreams[each].requests.length);
  const received = () => UPSTREAM_KINDS.flatMap((each, index) => upstreams[each].requests.slice(before[index]));
  if (endpoint === 'socket') {
    const socket = await openResponsesSocket(router);
    try {
      const events = await socket.create(body);
      const last = events.at(-1);
      return { status: last.type === 'error' ? last.status : 200, ...(last.type === 'error' ? { body: last } : {}), received: received(), text: JSON.stringify(events) };
    } finally {
      socket.ws.terminate();
    }
  }
  const path =
    endpoint === 'count' ? (client === 'messages' ? '/v1/messages/count_tokens' : '/v1/responses/input_tokens') : endpoint === 'compact' ? '/v1/responses/compact' : PATHS[client];
  const sent = endpoint === 'count' && client === 'messages' ? (({ max_tokens: _cap, ...rest }) => rest)(body) : endpoint === 'stream' ? { ...body, stream: true } : body;
  const reply = await send(router, path, { headers: headersFor(client, router.key), body: sent });
  return { status: reply.status, ...(reply.status >= 400 ? { body: reply.json } : {}), received: received(), text: reply.text };
}

const PREFIXES = ['', 'data:', 'data: ', 'data:text/plain,'];
const sample = fc.record({
  kind: fc.constantFrom(...UPSTREAM_KINDS),
  place: fc.constantFrom(...PLACES),
  shell: fc.option(fc.integer({ min: 0, max: SHELL.length - 1 }), { nil: undefined }),
  prefix: fc.constantFrom(...PREFIXES),
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
});

/** An Anthropic upstream takes a file inline only as a PDF or plain text: a JSON file is refused before any guardrail. */
const sendable = (client: Client, kind: UpstreamKind, place: Place) => !(place === 'base64-file' && kind === 'anthropic' && client !== 'messages');

/** Every backend type with every place first (each with one of the shell commands or the keys, one of the prefixes), then random ones. */
type Sample = typeof sample extends fc.Arbitrary<infer T> ? T : never;
const EXAMPLES: Array<[Sample]> = UPSTREAM_KINDS.flatMap((kind, k) =>
  PLACES.map((place, p): [Sample] => {
    const index = k * PLACES.length + p;
    return [{ kind, place, shell: index % (SHELL.length + 1) === SHELL.length ? undefined : index % (SHELL.length + 1), prefix: PREFIXES[index % PREFIXES.length]!, seed: index + 1 }];
  }),
);

describe('the secrets guardrail reads every text the model reads', () => {
  for (const client of CLIENTS) {
    for (const endpoint of ENDPOINTS[client]) {
      it(`${client} ${endpoint}: refuse answers 400 guardrail_refused in the client's format; mask sends no raw secret upstream`, async () => {
        await fc.assert(
          fc.asyncProperty(sample, async ({ kind, place, shell: template, prefix, seed }) => {
            fc.pre(sendable(client, kind, place));
            // A shell assignment is found where a command may start: after `data: `, not glued to `data:`.
            const secret = template === undefined ? keys(seed, prefix) : shell(seed, template, prefix === 'data: ' ? prefix : '');
            const body = conversation(client, place, secret.text);

            const refused = await exchange(client, endpoint, kind, body, 'refuse');
            expect(refused.status, refused.text).toBe(400);
            expect(refused.body).toMatchObject(
              client === 'messages' ? { type: 'error', error: { type: 'invalid_request_error' } } : { error: { type: 'invalid_request_error', code: 'guardrail_refused' } },
            );
            expect(refused.body?.error?.message).toMatch(/look like credentials/);
            expect(refused.received).toEqual([]);
            for (const value of secret.values) expect(refused.text).not.toContain(value);

            const masked = await exchange(client, endpoint, kind, body, 'mask');
            expect(masked.status, masked.text).toBe(200);
            const seen = masked.received.map(revealed);
            for (const [index, text] of seen.entries()) {
              for (const value of secret.values) expect(text, `${masked.received[index]!.path} received ${value}`).not.toContain(value);
            }
            // What the upstream got holds the placeholders, where the place reaches it: a count the router
            // estimates asks no upstream, the router's own compaction sends no tools, and text given as a
            // file's base64, which it is not, is decoded to noise on its way to Anthropic.
            const carried = place !== 'not-a-file' && !(endpoint === 'compact' && place === 'tool-description' && kind !== 'openai-responses');
            if (seen.length && carried) expect(seen.join('\n')).toContain('[secret:');
          }),
          { numRuns: EXAMPLES.length + 6, examples: EXAMPLES },
        );
      });
    }
  }
});
