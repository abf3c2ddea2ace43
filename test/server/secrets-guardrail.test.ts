import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SecretsMode } from '../../src/config/settings.js';
import { createRequestLog } from '../../src/server/request-log.js';
import { startFakeServer, type FakeUpstream } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { send, type Reply } from '../helpers/send.js';
import { parseSse } from '../helpers/sse-frames.js';
import { addBackend, setRoute, SKU, startUpstream, type UpstreamKind } from '../integration/support.js';

/**
 * The secrets guardrail on a real router in front of real fake upstreams, for every client format,
 * forwarded (same-format upstream) and translated, streamed and not: warn names what it found and
 * where but never the value; mask sends placeholders in place of every value, the same one for the
 * same value, and the same across turns; refuse answers 400 in the client's format and sends
 * nothing upstream. And the repository's own sources and docs, sent as prompts or as tool calls'
 * arguments, hold nothing it calls a credential.
 */

/** Values assembled when the test runs, so this file holds no credential for the corpus test to find. */
const join = (...parts: string[]) => parts.join('');
const AWS = join('AKIA', 'Q7Z2LW4MBN3XT5RY');
const GITHUB = join('ghp_', 'Zq8wX3vB7nM2kL9pR4tY6uI1oE5aS0dF7gH2');
const SLACK = join('xoxb-', '2718281828-3141592653-', 'kL9pR4tY6uI1oE5aS0dF7gH2');
const PASSWORD = join('Tr0ub4dor', '_3xyz');
const SECOND_AWS = join('AKIA', 'W3RT5YU7IO9PA2SD');
const VALUES = [AWS, GITHUB, SLACK, PASSWORD, SECOND_AWS];

const FORMATS = ['chat', 'messages', 'responses'] as const;
type Format = (typeof FORMATS)[number];
const PATHS: Record<Format, string> = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' };
/** The upstream that speaks each format (its reply is forwarded), and one that does not (translated). */
const UPSTREAMS: Record<Format, { forwarded: UpstreamKind; translated: UpstreamKind }> = {
  chat: { forwarded: 'openai-chat', translated: 'anthropic' },
  messages: { forwarded: 'anthropic', translated: 'openai-chat' },
  responses: { forwarded: 'openai-responses', translated: 'anthropic' },
};

/** A conversation with a credential in every place a model reads: system prompt, tool definition, user text, tool call, tool result. */
interface Turn {
  system: string;
  tool: string;
  user: string;
  command: string;
  result: string;
  /** A later user message (a second turn), when there is one. */
  followUp?: string;
}

const TURN: Turn = {
  system: `Deploy account ${AWS}.`,
  tool: `Posts to Slack with ${SLACK}.`,
  user: `Check the repo with ${GITHUB}; the account is ${AWS}.`,
  command: `mysql --password=${PASSWORD} shop`,
  result: `NODE_ENV=production\nDB_PASSWORD=${PASSWORD}\n`,
};

function body(format: Format, turn: Turn, stream: boolean): Record<string, unknown> {
  const args = JSON.stringify({ command: turn.command });
  const later = turn.followUp === undefined ? [] : [turn.followUp];
  switch (format) {
    case 'chat':
      return {
        model: SKU,
        stream,
        tools: [{ type: 'function', function: { name: 'run', description: turn.tool, parameters: { type: 'object', properties: { command: { type: 'string' } } } } }],
        messages: [
          { role: 'system', content: turn.system },
          { role: 'user', content: turn.user },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run', arguments: args } }] },
          { role: 'tool', tool_call_id: 'call_1', content: turn.result },
          ...later.map((text) => ({ role: 'user', content: text })),
        ],
      };
    case 'messages':
      return {
        model: SKU,
        max_tokens: 64,
        stream,
        system: turn.system,
        tools: [{ name: 'run', description: turn.tool, input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
        messages: [
          { role: 'user', content: turn.user },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'run', input: { command: turn.command } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: turn.result }, ...later.map((text) => ({ type: 'text', text }))] },
        ],
      };
    case 'responses':
      return {
        model: SKU,
        stream,
        instructions: turn.system,
        tools: [{ type: 'function', name: 'run', description: turn.tool, parameters: { type: 'object', properties: { command: { type: 'string' } } } }],
        input: [
          { role: 'user', content: [{ type: 'input_text', text: turn.user }] },
          { type: 'function_call', call_id: 'call_1', name: 'run', arguments: args },
          { type: 'function_call_output', call_id: 'call_1', output: turn.result },
          ...later.map((text) => ({ role: 'user', content: [{ type: 'input_text', text }] })),
        ],
      };
  }
}

function headersFor(format: Format, key: string): Record<string, string> {
  return format === 'messages'
    ? { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }
    : { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}

let router: TestRouter;
const upstreams = {} as Record<UpstreamKind, FakeUpstream>;
const logLines: string[] = [];

beforeAll(async () => {
  router = await startRouter({ capTokens: 1e12, http: { requestLog: createRequestLog({ format: 'json', write: (text) => void logLines.push(...text.split('\n').filter(Boolean)) }) } });
  for (const kind of ['openai-chat', 'anthropic', 'openai-responses'] as const) {
    upstreams[kind] = await startUpstream(kind, [{ text: 'done', usage: { input: 50, output: 2 } }]);
    addBackend(router, kind, kind, upstreams[kind].url);
  }
});

afterAll(async () => {
  await Promise.all(Object.values(upstreams).map((upstream) => upstream.close()));
  await router.close();
});

afterEach(() => {
  router.config.update((settings) => {
    settings.guardrails.secrets = 'off';
    delete settings.routePolicies[SKU];
  });
});

function setMode(mode: SecretsMode): void {
  router.config.update((settings) => {
    settings.guardrails.secrets = mode;
  });
}

/** Sends one turn through `kind`, and returns the reply and the body that upstream received (none when refused). */
async function exchange(format: Format, kind: UpstreamKind, stream: boolean, turn: Turn = TURN): Promise<{ reply: Reply; upstream: string | undefined }> {
  setRoute(router, SKU, [`${kind}:upstream-model`]);
  const before = upstreams[kind].requests.length;
  const reply = await send(router, PATHS[format], { headers: headersFor(format, router.key), body: body(format, turn, stream) });
  const received = upstreams[kind].requests.slice(before);
  return { reply, upstream: received.length ? JSON.stringify(received.at(-1)!.body) : undefined };
}

/** svc_meta.warnings from a JSON reply or the stream's last report. */
function warningsOf(format: Format, reply: Reply, stream: boolean): string[] {
  if (!stream) return (format === 'responses' ? reply.json.svc_meta : reply.json.svc_meta)?.warnings ?? [];
  const frames = parseSse(reply.text).filter((frame) => frame.data.includes('svc_meta'));
  const last = JSON.parse(frames.at(-1)!.data);
  return (last.svc_meta ?? last.response?.svc_meta ?? last.delta?.svc_meta)?.warnings ?? [];
}

const KINDS = ['aws-access-key', 'github-token', 'slack-token', 'password'];

const cases = FORMATS.flatMap((format) => (['forwarded', 'translated'] as const).flatMap((way) => [false, true].map((stream) => ({ format, way, stream }))));

describe('the secrets guardrail', () => {
  it.each(cases)('off: $format, $way, stream $stream: the request goes as it came', async ({ format, way, stream }) => {
    const { reply, upstream } = await exchange(format, UPSTREAMS[format][way], stream);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('x-svc-warning') ?? '').not.toContain('credentials');
    for (const value of [AWS, GITHUB, SLACK, PASSWORD]) expect(upstream).toContain(value);
  });

  it.each(cases)('warn: $format, $way, stream $stream: names each kind and where, never the value', async ({ format, way, stream }) => {
    setMode('warn');
    const { reply, upstream } = await exchange(format, UPSTREAMS[format][way], stream);
    expect(reply.status, reply.text).toBe(200);
    const header = reply.headers.get('x-svc-warning') ?? '';
    const warnings = warningsOf(format, reply, stream).join('\n');
    for (const said of [header, warnings]) {
      for (const kind of KINDS) expect(said).toContain(kind);
      expect(said).toMatch(format === 'responses' ? /input\[\d+\]/ : /messages\[\d+\]/);
      for (const value of VALUES) expect(said).not.toContain(value);
    }
    for (const value of [AWS, GITHUB, SLACK, PASSWORD]) expect(upstream).toContain(value);
  });

  it.each(cases)('mask: $format, $way, stream $stream: the upstream sees placeholders, the same one for the same value', async ({ format, way, stream }) => {
    setMode('mask');
    const { reply, upstream } = await exchange(format, UPSTREAMS[format][way], stream);
    expect(reply.status, reply.text).toBe(200);
    for (const value of VALUES) expect(upstream).not.toContain(value);
    // The AWS key in the system prompt and in the user's text is one key, with one placeholder.
    expect(upstream!.match(/\[secret:aws-access-key:1\]/g)?.length).toBeGreaterThanOrEqual(2);
    expect(upstream).not.toContain('[secret:aws-access-key:2]');
    for (const placeholder of ['[secret:github-token:1]', '[secret:slack-token:1]', '[secret:password:1]']) expect(upstream).toContain(placeholder);
    expect(reply.headers.get('x-svc-warning')).toContain('replaced by placeholders');
  });

  it.each(cases)("refuse: $format, $way, stream $stream: 400 guardrail_refused in the client's format, nothing sent upstream", async ({ format, way, stream }) => {
    setMode('refuse');
    const { reply, upstream } = await exchange(format, UPSTREAMS[format][way], stream);
    expect(reply.status, reply.text).toBe(400);
    expect(upstream).toBeUndefined();
    if (format === 'messages') {
      expect(reply.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    } else {
      expect(reply.json.error).toMatchObject({ type: 'invalid_request_error', code: 'guardrail_refused' });
    }
    const message: string = reply.json.error.message;
    for (const kind of KINDS) expect(message).toContain(kind);
    for (const value of VALUES) expect(reply.text).not.toContain(value);
  });

  it.each(FORMATS)('mask keeps a conversation coherent across turns: %s, forwarded and translated', async (format) => {
    setMode('mask');
    for (const way of ['forwarded', 'translated'] as const) {
      const first = await exchange(format, UPSTREAMS[format][way], false);
      const second = await exchange(format, UPSTREAMS[format][way], false, { ...TURN, followUp: `and the other account is ${SECOND_AWS}, not ${AWS}` });
      const before = JSON.parse(first.upstream!);
      const after = JSON.parse(second.upstream!);
      const conversation = format === 'responses' && way === 'forwarded' ? 'input' : 'messages';
      // The earlier turn reaches the upstream byte for byte again (its prompt cache still matches), the
      // new key numbered after. Its last message may take the follow-up in (Anthropic merges user turns).
      const earlier = before[conversation].length - 1;
      expect(earlier).toBeGreaterThan(1);
      expect(JSON.stringify(after[conversation].slice(0, earlier))).toBe(JSON.stringify(before[conversation].slice(0, earlier)));
      expect(second.upstream).toContain('[secret:aws-access-key:2]');
      expect(second.upstream).not.toContain(SECOND_AWS);
    }
  });

  it("a route's own mode wins over the router's", async () => {
    setMode('warn');
    router.config.update((settings) => {
      settings.routePolicies[SKU] = { guardrails: { secrets: 'refuse' } };
    });
    const { reply } = await exchange('chat', 'openai-chat', false);
    expect(reply.status).toBe(400);
    router.config.update((settings) => {
      settings.guardrails.secrets = 'refuse';
      settings.routePolicies[SKU] = { guardrails: { secrets: 'off' } };
    });
    expect((await exchange('chat', 'openai-chat', false)).reply.status).toBe(200);
  });

  it('the request log shows the verdict, never the value', async () => {
    setMode('mask');
    const logged = logLines.length;
    await exchange('messages', 'anthropic', true);
    setMode('refuse');
    await exchange('chat', 'openai-chat', false);
    await new Promise<void>((resolve) => (function wait() { if (logLines.slice(logged).some((line) => line.includes('"/v1/messages"')) && logLines.slice(logged).some((line) => line.includes('"status":400'))) resolve(); else setImmediate(wait); })());
    // A line is written once its response is done, which the client may see first: the last test's
    // line can land after `logged` was read, and a stream's after the next request's.
    const lines = logLines.slice(logged).map((line) => JSON.parse(line));
    const masked = lines.find((line) => line.path === '/v1/messages');
    const refused = lines.find((line) => line.status === 400);
    expect(masked.notes.secrets).toMatch(/^masked aws-access-key in system, messages\[0\]; /);
    expect(refused.status).toBe(400);
    expect(refused.error).toContain('aws-access-key');
    for (const value of VALUES) expect(logLines.slice(logged).join('\n')).not.toContain(value);
  });
});

describe('token counts', () => {
  // A count's request reaches an Anthropic upstream too (Claude Code sends one before most turns).
  it.each(['warn', 'mask', 'refuse'] as const)('%s: a count is held to the same rule as a completion', async (mode) => {
    const counter = await startFakeServer(async (_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 42 }));
    });
    try {
      addBackend(router, 'counter', 'anthropic', counter.origin);
      setRoute(router, SKU, ['counter:upstream-model']);
      setMode(mode);
      const reply = await send(router, '/v1/messages/count_tokens', { headers: headersFor('messages', router.key), body: { model: SKU, system: TURN.system, messages: [{ role: 'user', content: TURN.user }] } });
      const upstream = counter.requests.length ? JSON.stringify(counter.requests.at(-1)!.body) : undefined;
      for (const value of VALUES) expect(reply.text + (reply.headers.get('x-svc-warning') ?? '')).not.toContain(value);
      if (mode === 'refuse') {
        expect(reply.status).toBe(400);
        expect(reply.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
        expect(upstream).toBeUndefined();
        return;
      }
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json).toEqual({ input_tokens: 42 });
      expect(reply.headers.get('x-svc-warning')).toContain('aws-access-key in system');
      if (mode === 'warn') expect(upstream).toContain(AWS);
      else expect(upstream).not.toContain(AWS);
      if (mode === 'mask') expect(upstream).toContain('[secret:aws-access-key:1]');
    } finally {
      await counter.close();
    }
  });
});

describe("the repository's own sources, sent as prompts", () => {
  // A router of its own: the shared one holds the fakes' upstream key, which test sources quote, and
  // a value the settings hold is a credential wherever it appears.
  let bare: TestRouter;
  beforeAll(async () => {
    bare = await startRouter({ capTokens: 1e12 });
    bare.config.update((settings) => {
      settings.guardrails.secrets = 'refuse';
    });
  });
  afterAll(() => bare.close());
  const root = path.resolve(import.meta.dirname, '../..');
  // Text files only: a model file among the fixtures is no prompt anyone sends. Its docs too: they
  // are full of commands with variables set before them.
  const files = ['src', 'test', 'docs', 'bench', 'scripts']
    .flatMap((dir) => fs.readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name)))
    .concat(path.join(root, 'README.md'))
    .filter((file) => !fs.readFileSync(file).includes(0));
  const texts = files.map((file) => `${path.relative(root, file)}\n${fs.readFileSync(file, 'utf8')}`);

  /** Each file as a message of its own, or (`chat tool calls`) as a coding agent writes one: the JSON arguments of a tool call, with its result. */
  const SHAPES = [...FORMATS, 'chat tool calls'] as const;
  function corpus(shape: (typeof SHAPES)[number]): { format: Format; body: Record<string, unknown>; fileAt: (place: number) => number } {
    const turns = texts.map((text, index) => ({ role: index % 2 ? 'assistant' : 'user', content: text }));
    switch (shape) {
      case 'responses':
        return { format: shape, body: { model: SKU, input: turns }, fileAt: (place) => place };
      case 'messages':
        return { format: shape, body: { model: SKU, max_tokens: 16, messages: turns.length % 2 ? turns : [...turns, { role: 'user', content: 'go' }] }, fileAt: (place) => place };
      case 'chat':
        return { format: shape, body: { model: SKU, messages: turns }, fileAt: (place) => place };
      case 'chat tool calls': {
        const messages = files.flatMap((file, index) => [
          { role: 'assistant', content: null, tool_calls: [{ id: `call_${index}`, type: 'function', function: { name: 'write', arguments: JSON.stringify({ file_path: path.relative(root, file), content: texts[index] }) } }] },
          { role: 'tool', tool_call_id: `call_${index}`, content: 'written' },
        ]);
        return { format: 'chat', body: { model: SKU, messages: [{ role: 'user', content: 'write the repository' }, ...messages] }, fileAt: (place) => Math.floor((place - 1) / 2) };
      }
    }
  }

  it.each(SHAPES)('hold nothing the guardrail calls a credential (%s)', async (shape) => {
    expect(texts.length).toBeGreaterThan(300);
    const { format, body, fileAt } = corpus(shape);
    const reply = await send(bare, PATHS[format], { headers: headersFor(format, bare.key), body, timeoutMs: 60_000 });
    // A finding names the place, and so the file.
    const places = [...(reply.json?.error?.message ?? '').matchAll(/(?:messages|input)\[(\d+)\]/g)].map((match) => path.relative(root, files[fileAt(Number(match[1]))] ?? ''));
    expect(places).toEqual([]);
    expect(reply.status, reply.text.slice(0, 500)).toBe(200);
  });
});
