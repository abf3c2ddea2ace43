/**
 * No file the router reads while it runs can take it down. Each property breaks one of them in a
 * random way while requests of every client format flow (truncated, bytes inserted or deleted,
 * NUL bytes written over it, half of the next version written as an editor mid-save, a value of
 * the wrong type): no request gets a 500, the last good version keeps serving, the broken version
 * is reported once with its file, line and column, and the next good version is in force for the
 * first request after it is saved.
 */

import fs from 'node:fs';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { parseTree, type ParseError } from 'jsonc-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { initialise } from '../../src/cli/commands/init.js';
import { DeclarativeFile } from '../../src/config/declarative/file-source.js';
import { ConfigStore } from '../../src/config/store.js';
import { createApp, type App } from '../../src/handlers/app.js';
import { createHttpServer } from '../../src/server/http-server.js';
import type { RequestLogEntry } from '../../src/server/request-log.js';
import { tempHome } from '../helpers/router.js';
import { bodyFor, CLIENT_FORMATS, hasErrorShape, headersFor, PATHS, send, type ClientFormatName, type Reply } from './support.js';

const MODEL = 'svc.intelligent-pro';
const RUNS = 40;

/** The upstream model each good version routes to: which version served a request is in its log entry. */
const servedBy = (version: number): string => `good-${version}`;

interface Router {
  origin: string;
  key: string;
  home: string;
  /** Reports from the config store, the declarative file and the ledger. */
  reports: string[];
  entries: Map<string, RequestLogEntry>;
  config: ConfigStore;
  app: App;
  close(): Promise<void>;
}

async function startRouter(options: { declarative?: string } = {}): Promise<Router> {
  const home = tempHome();
  const reports: string[] = [];
  const report = (message: string) => void reports.push(message);
  const setup = new ConfigStore(home, { report });
  const { key } = initialise(setup, { developer: 'alice', org: 'acme', tier: 'pro' });
  setup.update((settings) => void (settings.routes[MODEL] = [`offline:${servedBy(0)}`]));
  let overlay: DeclarativeFile | undefined;
  if (options.declarative) {
    writeRenamed(path.join(home, options.declarative), declarativeText(0));
    overlay = new DeclarativeFile(path.join(home, options.declarative), report);
  }
  const config = new ConfigStore(home, { report, ...(overlay ? { overlay } : {}) });
  const app = createApp({ config, report });
  const entries = new Map<string, RequestLogEntry>();
  const server = createHttpServer(app, { requestLog: { logBodies: false, record: (entry) => void entries.set(entry.requestId ?? '', entry), flush: () => {} } });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    key,
    home,
    reports,
    entries,
    config,
    app,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Versions and the ways they break

/** A declarative file with most of its sections, so that corruptions land in every kind of value. */
function declarativeText(version: number): string {
  return `${JSON.stringify(
    {
      backends: { spare: { type: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'SPARE_KEY', timeouts: { connectMs: 1000 } } },
      routes: { [MODEL]: [`offline:${servedBy(version)}`], 'svc.intelligent-basic': ['offline', 'spare:gpt-4o'] },
      routePolicies: { [MODEL]: { rules: [{ name: 'images', when: { image: true }, targets: [`offline:${servedBy(version)}`] }] } },
      prices: { [servedBy(version)]: { input: 1, output: 2 } },
      contextWindows: { [MODEL]: 200_000 },
      limits: { outputReserveTokens: 1024 },
    },
    null,
    2,
  )}\n`;
}

/** config.json as the CLI writes it, routing MODEL to the version's upstream model (`stored`: the file as the router started). */
function settingsText(stored: Record<string, any>, version: number): string {
  return JSON.stringify({ ...stored, routes: { ...stored.routes, [MODEL]: [`offline:${servedBy(version)}`] }, prices: { [servedBy(version)]: { input: 1, output: 2 } } }, undefined, '\t');
}

type Corruption =
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'zero'; at: number; length: number }
  | { kind: 'half-written'; at: number }
  | { kind: 'wrong-type'; field: number };

const corruption: fc.Arbitrary<Corruption> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof(fc.constantFrom(',,', '}', '{', '"', ']', ':', '\0', 'null', '\n'), fc.string({ minLength: 1, maxLength: 6 })) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('zero' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }) }),
  fc.record({ kind: fc.constant('half-written' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('wrong-type' as const), field: fc.nat() }),
);

/** Valid JSON, but a value where the router needs another type: refused as a broken version is. */
const WRONG_TYPES: ReadonlyArray<(value: Record<string, any>) => void> = [
  (value) => void (value.routes[MODEL] = `offline:${servedBy(99)}`),
  (value) => void (value.routes = [MODEL]),
  (value) => void (value.prices = 'free'),
  (value) => void (value.limits = { outputReserveTokens: 'many' }),
  (value) => void (value.routePolicies = { [MODEL]: { rules: 'images' } }),
  (value) => void (value.contextWindows = { [MODEL]: '200k' }),
];
const SETTINGS_WRONG_TYPES: ReadonlyArray<(value: Record<string, any>) => void> = [
  ...WRONG_TYPES,
  (value) => void (value.keys.alice = 'alice'),
  (value) => void (value.keys.alice.capTokens = '1e9'),
  (value) => void delete value.keys.alice.developer,
  (value) => void (value.server = 8787),
  (value) => void (value.backends = { spare: { type: 'openai-chat' } }),
];

function corrupt(good: string, next: string, change: Corruption, wrongTypes: typeof WRONG_TYPES): string {
  const at = (n: number) => n % (good.length + 1);
  switch (change.kind) {
    case 'truncate':
      return good.slice(0, at(change.at) % good.length);
    case 'insert':
      return good.slice(0, at(change.at)) + change.text + good.slice(at(change.at));
    case 'delete':
      return good.slice(0, at(change.at)) + good.slice(at(change.at) + change.length);
    case 'zero': {
      const start = at(change.at);
      return good.slice(0, start) + '\0'.repeat(Math.min(change.length, good.length - start)) + good.slice(start + change.length);
    }
    case 'half-written':
      return next.slice(0, change.at % next.length);
    case 'wrong-type': {
      const value = JSON.parse(good) as Record<string, any>;
      wrongTypes[change.field % wrongTypes.length]!(value);
      return JSON.stringify(value, null, 2);
    }
  }
}

type Verdict = 'refused' | 'same' | 'changed';

/**
 * What a reader must make of a corrupted text, judged without the router's code: not JSON (for a
 * declarative file, not even JSON with comments and trailing commas), or a wrong type planted on
 * purpose, must be refused; the same value is the same version; anything else is a valid new
 * version whose meaning the test cannot predict (only that it is no cause for a 500).
 */
function verdict(text: string, good: string, change: Corruption, lenient: boolean): Verdict {
  if (change.kind === 'wrong-type') return 'refused';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (!lenient) return 'refused';
    const errors: ParseError[] = [];
    parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
    return errors.length ? 'refused' : 'changed';
  }
  return JSON.stringify(value) === JSON.stringify(JSON.parse(good)) ? 'same' : 'changed';
}

/** An editor's save (the file truncated, then written) or a replace by rename (as svc-router writes). */
type Save = 'in-place' | 'rename';
const save: fc.Arbitrary<Save> = fc.constantFrom('in-place', 'rename');

/**
 * Each save gets a time of its own, a second after the last: saves by a person are that far apart,
 * while here two could fall in one tick of the file system's clock, with the same size (and, after
 * a rename, a reused inode number), and look like one version to a reader that goes by the stamp.
 */
let saveTime = Math.floor(Date.now() / 1000);

function write(file: string, text: string, how: Save): void {
  if (how === 'rename') writeRenamed(file, text);
  else fs.writeFileSync(file, text);
  saveTime++;
  fs.utimesSync(file, saveTime, saveTime);
}

function writeRenamed(file: string, text: string): void {
  fs.writeFileSync(`${file}.next`, text);
  fs.renameSync(`${file}.next`, file);
}

// ---------------------------------------------------------------------------------------------
// Requests of every format, and what they must show

interface Sent {
  what: string;
  format?: ClientFormatName;
  reply: Reply;
}

/** One request of each format, streamed and not, and /whoami, all at once. */
function requests(router: Router): Array<Promise<Sent>> {
  const sent: Array<Promise<Sent>> = [];
  for (const format of CLIENT_FORMATS) {
    for (const stream of [false, true]) {
      const what = `${format}${stream ? ' stream' : ''}`;
      sent.push(send(router, PATHS[format], { headers: headersFor(format, router.key), body: bodyFor(format, MODEL, stream) }).then((reply) => ({ what, format, reply })));
    }
  }
  sent.push(send(router, '/whoami', { headers: { authorization: `Bearer ${router.key}` } }).then((reply) => ({ what: 'whoami', reply })));
  return sent;
}

/** Every answer is the good version's: 200, and each completion served by its upstream model. */
async function expectServedBy(router: Router, sent: Sent[], version: number): Promise<void> {
  for (const { what, reply } of sent) expect(reply.status, `${what}: ${reply.text}`).toBe(200);
  for (const { what, reply, format } of sent) {
    if (!format) {
      expect(reply.json.developer, what).toBe('alice');
      continue;
    }
    const id = reply.headers.get('x-request-id')!;
    // The log entry is recorded once the response is written; wait for it, not for a time.
    await vi.waitFor(() => expect(router.entries.has(id)).toBe(true), { timeout: 5_000, interval: 2 });
    expect(router.entries.get(id)!.upstreamModel, what).toBe(servedBy(version));
  }
}

/** Whatever a valid new version means, no request fails inside the router; errors are in the format's own shape. */
function expectNoInternalError(sent: Sent[]): void {
  for (const { what, reply, format } of sent) {
    expect(reply.status, `${what}: ${reply.text}`).not.toBe(500);
    if (reply.status >= 400 && reply.json) expect(hasErrorShape(format ?? 'chat', reply.json), `${what}: ${reply.text}`).toBe(true);
  }
}

/** Breaks the file, checks what requests see, then saves the next good version. */
async function breakAndFix(router: Router, file: string, version: { current: number }, change: Corruption, how: Save, fix: Save, texts: { text(version: number): string; wrongTypes: typeof WRONG_TYPES; lenient: boolean }): Promise<void> {
  const good = texts.text(version.current);
  const broken = corrupt(good, texts.text(version.current + 1), change, texts.wrongTypes);
  const judged = verdict(broken, good, change, texts.lenient);
  const reportsBefore = router.reports.length;

  // Requests already on their way while the file is broken, and requests that arrive after.
  const during = requests(router);
  write(file, broken, how);
  const sent = await Promise.all([...during, ...requests(router)]);
  const after = await Promise.all(requests(router));
  expectNoInternalError([...sent, ...after]);
  if (judged !== 'changed') await expectServedBy(router, [...sent, ...after], version.current);
  if (judged === 'refused') {
    // Told once for this version, however many requests read it; named by file, line and column.
    const told = router.reports.slice(reportsBefore);
    expect(told, told.join('\n')).toHaveLength(1);
    expect(told[0]).toContain(file);
    expect(told[0]).toMatch(/line \d+, column \d+: /);
    expect(told[0]).toMatch(/the previous version stays in force/);
    expect(told[0]).not.toContain(router.key);
  }

  // The fix is in force for the very next request after it is saved.
  version.current++;
  write(file, texts.text(version.current), fix);
  await expectServedBy(router, await Promise.all(requests(router)), version.current);
}

describe('a broken config.json while requests flow', () => {
  let router: Router;
  beforeAll(async () => {
    router = await startRouter();
  });
  afterAll(() => router.close());

  it('keeps the last good settings serving every format, says where once, and takes the fix on the next request', async () => {
    const version = { current: 0 };
    const stored = JSON.parse(fs.readFileSync(router.config.path, 'utf8')) as Record<string, any>;
    const texts = { text: (v: number) => settingsText(stored, v), wrongTypes: SETTINGS_WRONG_TYPES, lenient: false };
    await fc.assert(
      fc.asyncProperty(corruption, save, save, (change, how, fix) => breakAndFix(router, router.config.path, version, change, how, fix, texts)),
      { numRuns: RUNS },
    );
  });
});

describe('a broken declarative file (serve --config) while requests flow', () => {
  let router: Router;
  const name = 'team.json';
  beforeAll(async () => {
    router = await startRouter({ declarative: name });
  });
  afterAll(() => router.close());

  it('keeps the last good version serving every format, says where once, and takes the fix on the next request', async () => {
    const version = { current: 0 };
    const texts = { text: declarativeText, wrongTypes: WRONG_TYPES, lenient: true };
    await fc.assert(
      fc.asyncProperty(corruption, save, save, (change, how, fix) => breakAndFix(router, path.join(router.home, name), version, change, how, fix, texts)),
      { numRuns: RUNS },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The usage ledger: lines appended by other processes

/** A line another writer may leave: torn by a kill (then ended by the next start), garbage, or values no writer writes. */
const garbageLine: fc.Arbitrary<string> = fc.oneof(
  fc
    .record({ at: fc.nat(), ts: fc.constant(Date.now()) })
    .map(({ at, ts }) => {
      const record = JSON.stringify({ ts, developer: 'alice', inputTokens: 900_000_000, outputTokens: 5, requests: 1, requestId: 'req_torn' });
      return record.slice(0, 1 + (at % (record.length - 1)));
    }),
  fc.integer({ min: 1, max: 40 }).map((length) => '\0'.repeat(length)),
  fc.string({ minLength: 1, maxLength: 40 }).filter((text) => !text.includes('\n') && text.trim() !== ''),
  fc.constantFrom(
    '{"ts":1e400,"developer":"alice","inputTokens":1,"outputTokens":1}',
    `{"ts":${Date.now()},"developer":"alice","inputTokens":1e400,"outputTokens":1}`,
    `{"ts":${Date.now()},"developer":"alice","inputTokens":-1000000000,"outputTokens":1}`,
    `{"ts":${Date.now()},"developer":"alice","inputTokens":"900000000","outputTokens":1}`,
    `{"ts":"${new Date().toISOString()}","developer":"alice","inputTokens":1,"outputTokens":1}`,
    `{"ts":${Date.now()},"developer":42,"inputTokens":1,"outputTokens":1}`,
    `{"reserve":{"id":"req_x","developer":"alice","tokens":1e400,"until":1e400}}`,
    `{"reserve":{"id":"req_y","developer":"alice","tokens":900000000,"until":"later"}}`,
    '{"release":5}',
    '[]',
    'null',
    '"usage"',
  ),
);

describe('garbage in the usage ledger while requests flow', () => {
  let router: Router;
  beforeAll(async () => {
    router = await startRouter();
  });
  afterAll(() => router.close());

  it('skips each line it cannot read, says where once, and keeps counting and serving every format', async () => {
    const ledger = path.join(router.home, 'usage.jsonl');
    let completions = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(garbageLine, { minLength: 1, maxLength: 4 }), async (lines) => {
        const reportsBefore = router.reports.length;
        const before = fs.existsSync(ledger) ? fs.readFileSync(ledger, 'utf8').split('\n').length - 1 : 0;
        const during = requests(router);
        // Another process's lines, each whole (a torn one as the next start ends it).
        fs.appendFileSync(ledger, lines.map((line) => `${line}\n`).join(''));
        const sent = [...(await Promise.all([...during, ...requests(router)])), ...(await Promise.all(requests(router)))];
        const usage = await send(router, '/admin/usage', { headers: { authorization: `Bearer ${router.key}` } });
        completions += sent.filter((item) => item.format).length;
        expect(usage.status, usage.text).toBe(200);
        expectNoInternalError(sent);
        await expectServedBy(router, sent, 0);

        // Counted: every completion, once; skipped: every garbage line, so alice is nowhere near her cap.
        const whoami = await send(router, '/whoami', { headers: { authorization: `Bearer ${router.key}` } });
        expect(whoami.json.usage.requests).toBe(completions);
        expect(whoami.json.usage.remaining_tokens).toBeGreaterThan(whoami.json.usage.cap_tokens / 2);

        const told = router.reports.slice(reportsBefore);
        expect(told, told.join('\n')).toEqual(lines.map((_line, index) => expect.stringMatching(new RegExp(`^${escape(ledger)} line ${before + index + 1}, column \\d+: .*; the line is skipped$`))));
      }),
      { numRuns: RUNS },
    );
  });
});

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
