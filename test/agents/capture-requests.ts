/**
 * Records what the real agent CLIs send, for test/fixtures/agent-captures/. Each scenario runs one
 * agent against a recording server on loopback that answers like its provider would (a scripted
 * model behind it asks for one shell command, then answers), so the run goes on to tool results,
 * follow-up turns and the agent's side requests (titles, counts, compaction).
 *
 *   npx tsx test/agents/capture-requests.ts --claude BIN --codex BIN [--out DIR] [scenario …]
 *
 * BIN defaults to the suite's pinned install. Every request is written as one JSON line: scenario,
 * n, method, path, headers (credentials masked), body. The run's temporary root, home and working
 * directory become $ROOT, $HOME and $CWD; strings over 300 characters are cut, with a marker.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { codexModelCatalogJson } from '../../src/cli/codex-model-catalog.js';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startOpenAIResponsesUpstream } from '../fakes/openai-responses-upstream.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { agentBinary } from './install-agents.js';
import { baseEnv, CLAUDE_QUIET_ENV, codexExecArgs, runAgent, tempRoot, type Cleanups } from './run-agent.js';
import { hasTool, lastUserToolResultIds } from './shell-tool-script.js';

const exec = promisify(execFile);
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KEY = 'sk-capture-0123456789abcdef';
const FINAL = 'CAPTURE-FINAL';
const COMMAND = 'echo capture-ok';
const PROMPT = 'Run `echo capture-ok` with the shell tool, then reply with the final answer.';
const MAX_STRING = 300;
const OWN_HOME = new RegExp(`(?<![<\\w])${os.homedir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.-])`, 'g');

interface Captured {
  scenario: string;
  n: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** What one scenario ran against: the recording server and the scripted model behind it. */
interface Recorder {
  origin: string;
  requests: Captured[];
  close(): Promise<void>;
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'cookie', 'proxy-authorization', 'chatgpt-account-id']);

/**
 * A model that asks for the shell tool once on the requests that carry it, then answers; every
 * other request (titles, summaries, classifiers) gets a short answer. Auto mode's safeguards get a
 * "not flagged" verdict for each call, as Anthropic would write it.
 */
function anthropicScript(body: any): ScriptedTurn {
  const verdict =
    body.safeguards === undefined
      ? undefined
      : (ids: string[]) => ({
          safeguard_results: [{ type: 'dangerous_tool_use', status: { type: 'available', tool_uses: Object.fromEntries(ids.map((id) => [id, { type: 'evaluated', outcome: 'not_flagged' }])) } }],
        });
  if (!hasTool(body.tools, 'Bash')) return { text: 'ok', anthropicExtra: verdict };
  if (!lastUserToolResultIds(body.messages).includes('toolu_01CaptureBash')) {
    return { toolCalls: [{ id: 'toolu_01CaptureBash', name: 'Bash', arguments: { command: COMMAND, description: 'print a word' } }], anthropicExtra: verdict };
  }
  return { text: FINAL, anthropicExtra: verdict };
}

/** Asks for the call once per run: after a compaction the call's output is summarised away, and asking again would loop. */
function responsesScript(): (body: any) => ScriptedTurn {
  let called = false;
  return (body) => {
    if (!hasTool(body.tools, 'exec_command')) return { text: 'ok' };
    if (called) return { text: FINAL };
    called = true;
    // The call turn reports a large prompt, so Codex's low auto-compact limit (see codexExec) makes it compact once.
    return { toolCalls: [{ id: 'call_capture_shell', name: 'exec_command', arguments: { cmd: COMMAND } }], usage: { input: 50_000, output: 20 } };
  };
}

/** Starts the recording server in front of the scripted model of `kind`. */
async function startRecorder(scenario: string, kind: 'anthropic' | 'responses'): Promise<Recorder> {
  const model: FakeUpstream = kind === 'anthropic' ? await startAnthropicUpstream(anthropicScript) : await startOpenAIResponsesUpstream(responsesScript());
  const requests: Captured[] = [];
  const record = (req: IncomingMessage, raw: string): unknown => {
    let body: unknown = raw === '' ? undefined : raw;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      // Not JSON: kept as text.
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : (value ?? '');
    requests.push({ scenario, n: requests.length + 1, method: req.method ?? 'GET', path: req.url ?? '/', headers, ...(body === undefined ? {} : { body }) });
    return body;
  };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body = record(req, raw);
    try {
      await answer(req, res, body, raw, model.url);
    } catch (error) {
      if (!res.headersSent) json(res, 500, { error: { message: String(error) } });
      else res.destroy();
    }
  });
  // A WebSocket upgrade (Responses over WebSocket) is recorded and refused, so the client falls back to HTTP.
  server.on('upgrade', (req: IncomingMessage, socket) => {
    record(req, '');
    socket.end('HTTP/1.1 426 Upgrade Required\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await model.close();
    },
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const roughTokens = (raw: string): number => Math.max(1, Math.ceil(raw.length / 4));

/** The provider's answer for each endpoint the agents call; completions go to the scripted model. */
async function answer(req: IncomingMessage, res: ServerResponse, body: any, raw: string, modelUrl: string): Promise<void> {
  const pathname = new URL(req.url ?? '/', 'http://capture').pathname.replace(/^\/v1(?=\/)/, '');
  const post = req.method === 'POST';
  if (post && pathname === '/messages/count_tokens') return json(res, 200, { input_tokens: roughTokens(raw) });
  if (post && pathname === '/responses/input_tokens') return json(res, 200, { object: 'response.input_tokens', input_tokens: roughTokens(raw) });
  if (post && pathname === '/responses/compact') return json(res, 200, compacted(body));
  if (post && pathname === '/responses' && Array.isArray(body?.input) && body.input.some((item: any) => item?.type === 'compaction_trigger')) {
    return compactionStream(res, body);
  }
  if (post && (pathname === '/messages' || pathname === '/responses')) return relay(req, res, raw, `${modelUrl.replace(/\/v1$/, '')}/v1${pathname}`);
  if (req.method === 'GET' && pathname === '/models') {
    if (req.headers['anthropic-version']) {
      return json(res, 200, { data: [{ type: 'model', id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' }], has_more: false, first_id: 'claude-sonnet-4-5', last_id: 'claude-sonnet-4-5' });
    }
    return json(res, 200, { object: 'list', data: [], ...JSON.parse(codexModelCatalogJson()) });
  }
  if (req.method === 'HEAD') {
    res.writeHead(200);
    return void res.end();
  }
  return json(res, 200, {});
}

async function relay(req: IncomingMessage, res: ServerResponse, raw: string, url: string): Promise<void> {
  // The scripted model wants a key of its own; the client's never leaves the recorder.
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': 'k', authorization: 'Bearer k' };
  if (req.headers['anthropic-version']) headers['anthropic-version'] = String(req.headers['anthropic-version']);
  const upstream = await fetch(url, { method: 'POST', headers, body: raw });
  res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
  if (upstream.body) for await (const chunk of upstream.body) res.write(chunk);
  res.end();
}

/** POST /v1/responses/compact's documented reply: a `response.compaction` object whose output replaces the history. */
function compacted(body: any) {
  return {
    id: 'resp_capture_compact',
    object: 'response.compaction',
    created_at: Math.floor(Date.now() / 1000),
    output: [...userMessages(body?.input), { type: 'compaction', id: 'cmp_capture', encrypted_content: 'capture-opaque-summary' }],
    usage: { input_tokens: 100, output_tokens: 10, total_tokens: 110 },
  };
}

function userMessages(input: unknown): unknown[] {
  return Array.isArray(input) ? input.filter((item: any) => item?.type === 'message' && item.role === 'user') : [];
}

/** Remote compaction v2: a Responses stream whose one output item is the `compaction` item. */
function compactionStream(res: ServerResponse, body: any): void {
  const item = { type: 'compaction', id: 'cmp_capture_v2', encrypted_content: 'capture-opaque-summary' };
  const response = { id: 'resp_capture_v2', object: 'response', created_at: Math.floor(Date.now() / 1000), model: body?.model, status: 'in_progress', output: [] as unknown[] };
  const done = { ...response, status: 'completed', output: [item], usage: { input_tokens: 100, output_tokens: 10, total_tokens: 110, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } };
  const events = [
    { type: 'response.created', sequence_number: 0, response },
    { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item },
    { type: 'response.output_item.done', sequence_number: 2, output_index: 0, item },
    { type: 'response.completed', sequence_number: 3, response: done },
  ];
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''));
}

/** The capture with credentials masked, machine paths replaced and long strings cut. */
function cleaned(request: Captured, places: Array<[string, string]>): Captured {
  const scrub = (text: string): string => {
    let out = text.split(KEY).join('sk-***');
    for (const [place, name] of places) out = out.split(place).join(name);
    // The user's own home (Codex names its agent after it), not a `</root>`-like tag that contains it.
    return out.replace(OWN_HOME, '$USER_HOME');
  };
  const cut = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const text = scrub(value);
      return text.length > MAX_STRING ? `${text.slice(0, MAX_STRING)}…[trimmed, ${text.length} chars]` : text;
    }
    if (Array.isArray(value)) return value.map(cut);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, cut(inner)]));
    return value;
  };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = CREDENTIAL_HEADERS.has(name) ? `***(${value.length})` : scrub(value);
  return { ...request, path: scrub(request.path), headers, ...(request.body === undefined ? {} : { body: cut(request.body) }) };
}

interface ScenarioRun {
  requests: Captured[];
  places: Array<[string, string]>;
  outcome: string;
}

type Scenario = (binaries: { claude: string; codex: string }, cleanups: Cleanups) => Promise<ScenarioRun>;

const placesOf = (root: string, home: string, cwd: string): Array<[string, string]> => [
  [cwd, '$CWD'],
  [home, '$HOME'],
  [root, '$ROOT'],
];

function claudeEnv(home: string, origin: string): NodeJS.ProcessEnv {
  return { ...baseEnv(home), CLAUDE_CONFIG_DIR: path.join(home, '.claude'), ANTHROPIC_BASE_URL: origin, ANTHROPIC_API_KEY: KEY, ...CLAUDE_QUIET_ENV };
}

/** `claude -p` under a claude-* name and under a service name (thinking differs by name). */
const claudePrint =
  (model: string, scenario: string): Scenario =>
  async ({ claude }, cleanups) => {
    const recorder = await startRecorder(scenario, 'anthropic');
    cleanups.push(() => recorder.close());
    const { root, home, cwd } = tempRoot(cleanups, 'svc-capture-');
    const run = await runAgent('claude', claude, ['-p', PROMPT, '--model', model, '--allowedTools', 'Bash', '--max-turns', '4', '--output-format', 'text'], cwd, claudeEnv(home, recorder.origin));
    return { requests: recorder.requests, places: placesOf(root, home, cwd), outcome: `exit ${run.code}; ${run.stdout.includes(FINAL) ? 'final answer shown' : `no final answer: ${run.stdout.slice(-300)} ${run.stderr.slice(-300)}`}` };
  };

const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * An interactive session in tmux (its default permission mode), then `/compact`: the only way to
 * see Claude Code's compaction request without filling a context window.
 */
const claudeInteractive: Scenario = async ({ claude }, cleanups) => {
  const scenario = 'claude_interactive_compact';
  const recorder = await startRecorder(scenario, 'anthropic');
  cleanups.push(() => recorder.close());
  const { root, home, cwd } = tempRoot(cleanups, 'svc-capture-');
  const configDir = path.join(home, '.claude');
  fs.mkdirSync(configDir, { recursive: true });
  fs.writeFileSync(
    path.join(configDir, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, theme: 'dark', projects: { [cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } } }),
  );
  // An interactive session asks before using ANTHROPIC_API_KEY; a token is used unasked.
  const { ANTHROPIC_API_KEY: _asked, ...quiet } = claudeEnv(home, recorder.origin);
  const env = { ...quiet, ANTHROPIC_AUTH_TOKEN: KEY, TERM: 'xterm-256color' };
  const socket = `svc-capture-${process.pid}`;
  const tmux = (...args: string[]) => exec('tmux', ['-L', socket, ...args], { env });
  const screen = async () => (await tmux('capture-pane', '-p', '-t', 'cap').catch(() => ({ stdout: '' }))).stdout;
  const command = [claude, PROMPT, '--model', 'claude-sonnet-4-5', '--allowedTools', 'Bash'].map(shellQuote).join(' ');
  await tmux('new-session', '-d', '-s', 'cap', '-x', '200', '-y', '50', '-c', cwd, `cd ${shellQuote(cwd)} && exec ${command}`);
  cleanups.push(() => tmux('kill-server').catch(() => undefined));
  const waitFor = async (seen: (text: string) => boolean, ms: number): Promise<boolean> => {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 500))) if (seen(await screen())) return true;
    return false;
  };
  let outcome = (await waitFor((text) => text.includes(FINAL), 90_000)) ? 'final answer shown' : `no final answer:\n${await screen()}`;
  const before = recorder.requests.length;
  await tmux('send-keys', '-t', 'cap', '-l', '/compact');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await tmux('send-keys', '-t', 'cap', 'Enter');
  const compacted = await waitFor((text) => /compacted|Compacted/.test(text) && recorder.requests.length > before, 60_000);
  outcome += compacted ? '; /compact done' : `; /compact not seen:\n${await screen()}`;
  await tmux('kill-server').catch(() => undefined);
  return { requests: recorder.requests, places: placesOf(root, home, cwd), outcome };
};

/**
 * `codex exec` with the router-style custom provider (as the suite runs it), and with the built-in
 * OpenAI provider pointed at the server (`openai_base_url`), which Codex treats as OpenAI:
 * WebSocket first, remote compaction. A low auto-compact limit makes both compact.
 */
const codexExec =
  (provider: 'custom' | 'openai'): Scenario =>
  async ({ codex }, cleanups) => {
    const scenario = provider === 'custom' ? 'codex_exec_custom_provider' : 'codex_exec_openai_base_url';
    const recorder = await startRecorder(scenario, 'responses');
    cleanups.push(() => recorder.close());
    const { root, home, cwd } = tempRoot(cleanups, 'svc-capture-');
    const codexHome = path.join(home, '.codex');
    fs.mkdirSync(codexHome);
    const catalogFile = path.join(codexHome, 'svc-models.json');
    fs.writeFileSync(catalogFile, codexModelCatalogJson());
    const model = provider === 'custom' ? 'svc.intelligent-pro' : 'gpt-5.1-codex';
    const lines =
      provider === 'custom'
        ? [
            'model_provider = "svc"',
            `model = "${model}"`,
            `model_catalog_json = ${JSON.stringify(catalogFile)}`,
            'model_auto_compact_token_limit = 2000',
            '',
            '[model_providers.svc]',
            'name = "svc-router"',
            `base_url = "${recorder.origin}/v1"`,
            'wire_api = "responses"',
            'env_key = "SVC_TEST_KEY"',
            'request_max_retries = 0',
            'stream_max_retries = 0',
          ]
        : [`model = "${model}"`, `openai_base_url = "${recorder.origin}/v1"`, 'model_auto_compact_token_limit = 2000'];
    fs.writeFileSync(path.join(codexHome, 'config.toml'), `${lines.join('\n')}\n`);
    const env = { ...baseEnv(home), CODEX_HOME: codexHome, SVC_TEST_KEY: KEY, OPENAI_API_KEY: KEY };
    const lastMessage = path.join(root, 'last-message.txt');
    const run = await runAgent('codex', codex, codexExecArgs(lastMessage, PROMPT), cwd, env);
    const said = fs.existsSync(lastMessage) ? fs.readFileSync(lastMessage, 'utf8') : '';
    return { requests: recorder.requests, places: placesOf(root, home, cwd), outcome: `exit ${run.code}; ${said.includes(FINAL) ? 'final answer written' : `no final answer: ${run.stderr.slice(-600)}`}` };
  };

const SCENARIOS: Record<string, { agent: 'claude' | 'codex'; run: Scenario }> = {
  claude_print_claude_model: { agent: 'claude', run: claudePrint('claude-sonnet-4-5', 'claude_print_claude_model') },
  claude_print_service_model: { agent: 'claude', run: claudePrint('svc.intelligent-pro', 'claude_print_service_model') },
  claude_interactive_compact: { agent: 'claude', run: claudeInteractive },
  codex_exec_custom_provider: { agent: 'codex', run: codexExec('custom') },
  codex_exec_openai_base_url: { agent: 'codex', run: codexExec('openai') },
};

async function version(binary: string): Promise<string> {
  const { stdout } = await exec(binary, ['--version']);
  return stdout.match(/\d+\.\d+\.\d+/)?.[0] ?? 'unknown';
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string): string | undefined => {
    const at = args.indexOf(name);
    return at === -1 ? undefined : args.splice(at, 2)[1];
  };
  const binaries = { claude: option('--claude') ?? agentBinary('claude'), codex: option('--codex') ?? agentBinary('codex') };
  const out = path.resolve(option('--out') ?? path.join(REPO_ROOT, 'test/fixtures/agent-captures'));
  const chosen = args.length ? args : Object.keys(SCENARIOS);
  fs.mkdirSync(out, { recursive: true });
  const versions = { claude: await version(binaries.claude), codex: await version(binaries.codex) };
  for (const name of chosen) {
    const scenario = SCENARIOS[name];
    if (!scenario) throw new Error(`unknown scenario '${name}'; known: ${Object.keys(SCENARIOS).join(', ')}`);
    const cleanups: Cleanups = [];
    try {
      const run = await scenario.run(binaries, cleanups);
      const file = path.join(out, `${scenario.agent === 'claude' ? 'claude-code' : 'codex'}-${versions[scenario.agent]}.jsonl`);
      // A scenario run again replaces its own lines and keeps the other scenarios'.
      const kept = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((line) => line && (JSON.parse(line) as Captured).scenario !== name) : [];
      const lines = run.requests.map((request) => JSON.stringify(cleaned(request, run.places)));
      fs.writeFileSync(file, [...kept, ...lines].map((line) => `${line}\n`).join(''));
      console.log(`${name}: ${run.requests.length} request(s) → ${path.relative(REPO_ROOT, file)} (${run.outcome})`);
    } finally {
      for (const cleanup of cleanups.reverse()) await cleanup();
    }
  }
}

await main();
