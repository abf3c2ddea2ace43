/**
 * The settings that point each kind of client at a router, as text to print and as merges into
 * the client's own config file. No I/O here, so other code (and the agent suites) can reuse it.
 */

import { readJsonText } from '../files/json-text.js';

/** The model clients are pointed at by default. */
const DEFAULT_CLIENT_MODEL = 'svc.intelligent-pro';
/**
 * The environment variable the key is read from: by Codex (through its provider's auth command)
 * and by the svc-router CLI itself.
 */
export const KEY_ENV = 'SVC_ROUTER_KEY';
/**
 * The variables each SDK snippet reads its key from: the ones `svc-router env` (and the serve
 * banner) export, so `eval "$(svc-router env)"` is all a shell needs before running one. The
 * Anthropic snippet sends the key as a bearer token, as Claude Code does.
 */
export const OPENAI_KEY_ENV = 'OPENAI_API_KEY';
export const ANTHROPIC_TOKEN_ENV = 'ANTHROPIC_AUTH_TOKEN';
/** The name of the custom model provider in Codex's config. */
const CODEX_PROVIDER = 'svc';
/**
 * The command Codex runs for the provider's key, which prints it: `node -e <CODEX_KEY_SCRIPT> NAME`.
 * A provider whose key comes from an auth command is the only kind of custom provider Codex asks
 * for its model catalog (GET /v1/models), which is how it learns the svc SKUs (apply_patch
 * included). Node is there wherever svc-router runs, Windows included (where `printenv` is not),
 * and when the variable is unset the script says which one: Codex shows the command's stderr in
 * its "provider auth command … exited" error.
 */
export const CODEX_AUTH_COMMAND = 'node';
/** Prints the variable named by its argument, or says on stderr that it is not set and exits 1. */
export const CODEX_KEY_SCRIPT =
  "const name = process.argv[1]; const key = process.env[name]; if (!key) { console.error(`${name} is not set where codex runs: export ${name}=<your svc-router key> (svc-router env prints the line)`); process.exit(1); } process.stdout.write(key);";
/** Keys of a Codex provider that Codex refuses beside an `auth` table ("provider auth cannot be combined with …"). */
const CODEX_AUTH_CONFLICTS = ['env_key', 'experimental_bearer_token', 'requires_openai_auth'] as const;

/** `http://host:port`, whether given with or without /v1 or a trailing slash (or with /v1 twice, the usual paste mistake). */
export const originOf = (url: string): string => url.replace(/\/+$/, '').replace(/(?:\/v1)+$/, '');

/** A TOML basic string; JSON's escapes are all valid TOML escapes. */
const tomlString = (value: string): string => JSON.stringify(value);
const tomlStrings = (values: string[]): string => `[${values.map(tomlString).join(', ')}]`;

/** Key and TOML value pairs, in the order they are written. */
type Pairs = Array<[string, string]>;

const codexProviderTable = `model_providers.${CODEX_PROVIDER}`;
const codexAuthTable = `${codexProviderTable}.auth`;

function codexParts(origin: string, keyEnv: string): { top: Pairs; table: Pairs; auth: Pairs } {
  return {
    top: [
      ['model', tomlString(DEFAULT_CLIENT_MODEL)],
      ['model_provider', tomlString(CODEX_PROVIDER)],
    ],
    table: [
      ['name', tomlString('svc-router')],
      ['base_url', tomlString(`${originOf(origin)}/v1`)],
      ['wire_api', tomlString('responses')],
      // The router serves Responses over WebSocket (one socket a session, each turn sending only
      // what is new); a router with server.websockets off answers the upgrade 426, and Codex then
      // goes on over HTTP at once.
      ['supports_websockets', 'true'],
    ],
    auth: [
      ['command', tomlString(CODEX_AUTH_COMMAND)],
      ['args', tomlStrings(['-e', CODEX_KEY_SCRIPT, keyEnv])],
    ],
  };
}

const assignments = (pairs: Pairs): string[] => pairs.map(([key, value]) => `${key} = ${value}`);

/**
 * Codex CLI's config.toml lines: the model, and a custom provider speaking the Responses API
 * whose key Codex gets by running CODEX_KEY_SCRIPT, which prints `keyEnv`.
 */
export function codexConfigToml(origin: string, keyEnv: string = KEY_ENV): string {
  const { top, table, auth } = codexParts(origin, keyEnv);
  return [...assignments(top), '', `[${codexProviderTable}]`, ...assignments(table), '', `[${codexAuthTable}]`, ...assignments(auth), ''].join('\n');
}

/** What Claude Code is told of the models: a SKU per tier, and the window to compact under. */
export interface ClaudeModels {
  main: string;
  opus: string;
  sonnet: string;
  haiku: string;
  contextWindow?: number;
}

const ALL_PRO: ClaudeModels = { main: DEFAULT_CLIENT_MODEL, opus: DEFAULT_CLIENT_MODEL, sonnet: DEFAULT_CLIENT_MODEL, haiku: DEFAULT_CLIENT_MODEL };

/**
 * Claude Code's model variables (names as Claude Code 2.1.330 reads them). Every tier names an
 * svc SKU, so no request asks for a claude-* id no route names; the window stops Claude Code's
 * "doesn't recognize the model … assumes a context window of 1m tokens", which would keep it from
 * compacting before the upstream refuses the prompt. One variable covers every unknown model, so
 * it is the smallest window among the tiers.
 */
export function claudeModelEnv(models: ClaudeModels): Record<string, string> {
  return {
    ANTHROPIC_MODEL: models.main,
    ANTHROPIC_DEFAULT_OPUS_MODEL: models.opus,
    ANTHROPIC_DEFAULT_SONNET_MODEL: models.sonnet,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: models.haiku,
    // A newer tier alias Claude Code reads beside the three; it gets the strongest SKU.
    ANTHROPIC_DEFAULT_FABLE_MODEL: models.opus,
    // The older name for the haiku tier (background requests); still read.
    ANTHROPIC_SMALL_FAST_MODEL: models.haiku,
    CLAUDE_CODE_SUBAGENT_MODEL: models.main,
    // Auto mode's own classifier requests, when no verdict comes back with the reply.
    CLAUDE_CODE_AUTO_MODE_MODEL: models.main,
    ...(models.contextWindow !== undefined ? { CLAUDE_CODE_MAX_CONTEXT_TOKENS: String(models.contextWindow) } : {}),
  };
}

/**
 * Claude Code's `env` settings: the router's address, the key (sent as `Authorization: Bearer`;
 * ANTHROPIC_API_KEY would make Claude Code ask about a custom key) and the model variables.
 */
export function claudeSettingsEnv(origin: string, key: string, models: ClaudeModels = ALL_PRO): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: originOf(origin),
    ANTHROPIC_AUTH_TOKEN: key,
    ...claudeModelEnv(models),
  };
}

/** `export NAME=value`, quoted for the shell when the value needs it. */
export function exportLine(name: string, value: string): string {
  return `export ${name}=${/^[A-Za-z0-9_./:@%+,=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`}`;
}

/**
 * The export lines that point every kind of client at the router, one story for `serve`'s banner,
 * `env` and `connect`: OpenAI-style clients (and the OpenAI SDK snippet), Claude Code (and the
 * Anthropic SDK snippet, which reads the same token) with its model variables, Gemini CLI and the
 * Google GenAI SDK (the origin without a version: they add /v1beta; the key goes as
 * x-goog-api-key), and SVC_ROUTER_KEY, which Codex's provider and the svc-router CLI read.
 */
export function clientEnv(origin: string, key: string, models?: ClaudeModels): Array<[string, string]> {
  return [
    ['OPENAI_BASE_URL', `${originOf(origin)}/v1`],
    [OPENAI_KEY_ENV, key],
    ...Object.entries(claudeSettingsEnv(origin, key, models)),
    ['GOOGLE_GEMINI_BASE_URL', originOf(origin)],
    ['GEMINI_API_KEY', key],
    [KEY_ENV, key],
  ];
}

export function openaiSdkSnippet(origin: string): string {
  return [
    '// npm install openai',
    "import OpenAI from 'openai';",
    '',
    `const client = new OpenAI({ baseURL: '${originOf(origin)}/v1', apiKey: process.env.${OPENAI_KEY_ENV} });`,
    `const response = await client.responses.create({ model: '${DEFAULT_CLIENT_MODEL}', input: 'Say hello.' });`,
    'console.log(response.output_text);',
    '',
  ].join('\n');
}

export function anthropicSdkSnippet(origin: string): string {
  return [
    '// npm install @anthropic-ai/sdk',
    "import Anthropic from '@anthropic-ai/sdk';",
    '',
    '// The key goes as a bearer token; apiKey: null keeps an ANTHROPIC_API_KEY of your own from being sent instead.',
    `const client = new Anthropic({ baseURL: '${originOf(origin)}', apiKey: null, authToken: process.env.${ANTHROPIC_TOKEN_ENV} });`,
    'const message = await client.messages.create({',
    `  model: '${DEFAULT_CLIENT_MODEL}',`,
    '  max_tokens: 1024,',
    "  messages: [{ role: 'user', content: 'Say hello.' }],",
    '});',
    "console.log(message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));",
    '',
  ].join('\n');
}

/** Thrown when a file holds our settings in a form a line-based merge must not touch. */
export class MergeError extends Error {}

// ---------------------------------------------------------------------------------------------
// Codex config.toml: a line-based merge, enough for the keys we own and exact about the rest.

const HEADER = /^\s*\[\s*([^[\]]+?)\s*\]\s*(#.*)?$/;
const ARRAY_HEADER = /^\s*\[\[.*\]\]\s*(#.*)?$/;
const KEY = /^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=/;

/** `a . "b"` → `a.b`, so headers written with quotes or spaces still match. */
const normaliseName = (name: string): string =>
  name
    .split('.')
    .map((part) => part.trim().replace(/^"(.*)"$|^'(.*)'$/, '$1$2'))
    .join('.');

/** The bare key a `key = value` line sets, if it sets one. */
function keyOf(line: string): string | undefined {
  const match = KEY.exec(line);
  return match ? normaliseName(match[1]!) : undefined;
}

interface Line {
  text: string;
  /** Normalised table name when the line is a `[table]` header; `[[array]]` headers get a marker. */
  header?: string;
  /** Continues a value begun on an earlier line (a multi-line string or array): never a header or a key. */
  continued: boolean;
}

type MultiLineQuote = '"""' | "'''";

/** What is still open at the end of a line: a multi-line string, and how deep in brackets a value is. */
interface ValueState {
  open: MultiLineQuote | undefined;
  depth: number;
}

/** Follows a value through one line from `from`, past strings and comments, counting brackets. */
function lexValue(text: string, from: number, state: ValueState): ValueState {
  let { open, depth } = state;
  for (let index = from; index < text.length; index++) {
    if (open !== undefined) {
      if (open === '"""' && text[index] === '\\') index++;
      else if (text.startsWith(open, index)) {
        // Up to two quotes may sit right before the closing delimiter.
        let end = index + 3;
        while (end < index + 5 && text[end] === open[0]) end++;
        index = end - 1;
        open = undefined;
      }
      continue;
    }
    const char = text[index];
    if (char === '#') break;
    if (text.startsWith('"""', index) || text.startsWith("'''", index)) {
      open = text.slice(index, index + 3) as MultiLineQuote;
      index += 2;
    } else if (char === '"') {
      for (index++; index < text.length && text[index] !== '"'; index++) if (text[index] === '\\') index++;
    } else if (char === "'") {
      const end = text.indexOf("'", index + 1);
      index = end === -1 ? text.length : end;
    } else if (char === '[' || char === '{') depth++;
    else if ((char === ']' || char === '}') && depth > 0) depth--;
  }
  return { open, depth };
}

function scan(lines: string[]): Line[] {
  const scanned: Line[] = [];
  let state: ValueState = { open: undefined, depth: 0 };
  for (const text of lines) {
    if (state.open !== undefined || state.depth > 0) {
      scanned.push({ text, continued: true });
      state = lexValue(text, 0, state);
      continue;
    }
    let header: string | undefined;
    if (ARRAY_HEADER.test(text)) header = '[[array]]';
    else {
      const match = HEADER.exec(text);
      if (match) header = normaliseName(match[1]!);
    }
    scanned.push({ text, ...(header ? { header } : {}), continued: false });
    const key = header === undefined ? KEY.exec(text) : null;
    if (key) state = lexValue(text, key[0].length, state);
  }
  return scanned;
}

const isContent = (line: Line): boolean => line.continued || (line.text.trim() !== '' && !line.text.trim().startsWith('#'));

/**
 * Sets the top-level `model` and `model_provider` lines, the `[model_providers.svc]` table's keys
 * and its `[model_providers.svc.auth]` table's keys in an existing config.toml, replacing the
 * lines that set them and inserting the ones (or the tables) that are missing. Keys Codex refuses
 * beside an auth table (`env_key` and the like) are removed from our provider's table. Every other
 * line (comments, other tables, other keys of these tables) stays as it was.
 */
export function mergeCodexConfig(existing: string, origin: string, keyEnv: string = KEY_ENV): string {
  const eol = existing.includes('\r\n') ? '\r\n' : '\n';
  const { top, table, auth } = codexParts(origin, keyEnv);
  const lines = existing === '' ? [] : existing.replace(/\r?\n$/, '').split(/\r?\n/);
  const scanned = scan(lines);
  refuseOtherForms(scanned);

  /** What each original line becomes: itself, a replacement, nothing, or itself plus lines inserted after it. */
  const out = scanned.map((line) => [line.text]);
  /** Lines inserted before the first line, and after the last. */
  const head: string[] = [];
  const tail: string[] = [];
  const insertAfter = (index: number, added: string[]): void => {
    (index < 0 ? head : out[index]!).push(...added);
  };
  /** Replaces (or, with no text, removes) the key line at `at` and the lines its value continues on. */
  const replace = (at: number, text: string | undefined): void => {
    out[at] = text === undefined ? [] : [text];
    for (let index = at + 1; scanned[index]?.continued; index++) out[index] = [];
  };
  const headerAt = (name: string): number => scanned.findIndex((line) => line.header === name);
  /** The end (exclusive) of the table whose header is at `start`. */
  const tableEnd = (start: number): number => {
    const end = scanned.findIndex((line, index) => index > start && line.header !== undefined);
    return end === -1 ? scanned.length : end;
  };
  /** The last content line in [from, to), else from - 1. */
  const lastContent = (from: number, to: number): number => {
    let last = from - 1;
    for (let index = from; index < to; index++) if (isContent(scanned[index]!)) last = index;
    return last;
  };
  /** Sets `pairs` among lines [from, to) and removes the `drop` keys; returns the assignments still missing. */
  const setKeys = (from: number, to: number, pairs: Pairs, drop: readonly string[] = []): string[] => {
    const missing: string[] = [];
    for (const [key, value] of pairs) {
      const at = findKeyLine(scanned, from, to, key);
      if (at === -1) missing.push(`${key} = ${value}`);
      else replace(at, `${leadingSpace(scanned[at]!.text)}${key} = ${value}`);
    }
    for (const key of drop) {
      for (let at = findKeyLine(scanned, from, to, key); at !== -1; at = findKeyLine(scanned, at + 1, to, key)) replace(at, undefined);
    }
    return missing;
  };
  /** Sets the table's keys (the header is at `start`), adding the missing ones after its last content line. */
  const mergeTable = (start: number, pairs: Pairs, drop: readonly string[] = []): void => {
    const end = tableEnd(start);
    const missing = setKeys(start + 1, end, pairs, drop);
    if (missing.length) insertAfter(lastContent(start + 1, end), missing);
  };

  const providerHeader = `[${codexProviderTable}]`;
  const authHeader = `[${codexAuthTable}]`;
  const providerStart = headerAt(codexProviderTable);
  const authStart = headerAt(codexAuthTable);

  if (providerStart !== -1) mergeTable(providerStart, table, CODEX_AUTH_CONFLICTS);
  if (authStart !== -1) mergeTable(authStart, auth);
  if (providerStart === -1 && authStart !== -1) {
    // Only the auth table is there: put the provider's table right before it.
    out[authStart]!.unshift(providerHeader, ...assignments(table), '');
  } else if (providerStart !== -1 && authStart === -1) {
    const after = lastContent(providerStart + 1, tableEnd(providerStart));
    const followedByHeader = scanned[after + 1]?.header !== undefined;
    insertAfter(after, ['', authHeader, ...assignments(auth), ...(followedByHeader ? [''] : [])]);
  } else if (providerStart === -1 && authStart === -1) {
    // Both tables go at the end, after the last content line (trailing blank lines give way).
    const last = findLastIndex(scanned, (line) => line.continued || line.text.trim() !== '');
    for (let index = last + 1; index < out.length; index++) out[index] = [];
    tail.push(providerHeader, ...assignments(table), '', authHeader, ...assignments(auth));
  }

  const firstHeader = scanned.findIndex((line) => line.header !== undefined);
  const topEnd = firstHeader === -1 ? scanned.length : firstHeader;
  const missingTop = setKeys(0, topEnd, top);
  if (missingTop.length) {
    const after = lastContent(0, topEnd);
    const following = [...out.slice(after + 1).flat(), ...tail][0];
    // Keep a blank line between the top-level keys and a table that follows at once.
    insertAfter(after, following?.trim().startsWith('[') ? [...missingTop, ''] : missingTop);
  }

  const merged = [...head, ...out.flat()];
  if (tail.length && merged.length && merged.at(-1)!.trim() !== '') merged.push('');
  merged.push(...tail);
  return `${merged.join(eol)}${eol}`;
}

/** Forms of our settings a line-based merge would duplicate: refuse them rather than break the file. */
function refuseOtherForms(scanned: Line[]): void {
  let current = '';
  for (const line of scanned) {
    if (line.header !== undefined) current = line.header;
    if (line.header !== undefined || line.continued) continue;
    const key = keyOf(line.text);
    if (key === undefined) continue;
    const full = current ? `${current}.${key}` : key;
    const inOurs = current === codexProviderTable || current.startsWith(`${codexProviderTable}.`);
    if (!inOurs && (full === codexProviderTable || full.startsWith(`${codexProviderTable}.`))) {
      throw new MergeError(`it sets ${codexProviderTable} as '${line.text.trim()}'; change that by hand, or write it as a [${codexProviderTable}] table`);
    }
    if (current === codexProviderTable && (key === 'auth' || key.startsWith('auth.'))) {
      throw new MergeError(`it sets ${codexAuthTable} as '${line.text.trim()}'; change that by hand, or write it as a [${codexAuthTable}] table`);
    }
  }
}

function findKeyLine(scanned: Line[], from: number, to: number, key: string): number {
  for (let index = from; index < to; index++) {
    const line = scanned[index]!;
    if (!line.continued && !line.header && keyOf(line.text) === key) return index;
  }
  return -1;
}

const leadingSpace = (text: string): string => /^\s*/.exec(text)![0];

function findLastIndex<T>(list: T[], test: (item: T) => boolean): number {
  for (let index = list.length - 1; index >= 0; index--) if (test(list[index]!)) return index;
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Claude Code settings.json: set keys of its `env` object, keep everything else.

/** The settings file with `env` merged in; `existing` undefined or blank means a new file. */
export function mergeClaudeSettings(existing: string | undefined, env: Record<string, string>): string {
  let settings: Record<string, unknown> = {};
  if (existing !== undefined && existing.trim() !== '') {
    const reading = readJsonText(existing);
    // Where, not what: the file may hold a key, and JSON.parse's message can quote it.
    if (!reading.ok) throw new MergeError(`it is not valid JSON (line ${reading.problem.line}, column ${reading.problem.column}: ${reading.problem.message}); fix it by hand first`);
    const parsed = reading.value;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new MergeError('it does not hold a JSON object');
    settings = parsed as Record<string, unknown>;
  }
  const current = settings.env;
  if (current !== undefined && (current === null || typeof current !== 'object' || Array.isArray(current))) {
    throw new MergeError('its "env" is not an object');
  }
  settings.env = { ...(current as Record<string, unknown> | undefined), ...env };
  const indent = existing ? (/\n([ \t]+)"/.exec(existing)?.[1] ?? '  ') : '  ';
  const eol = existing?.includes('\r\n') ? '\r\n' : '\n';
  return `${JSON.stringify(settings, null, indent).split('\n').join(eol)}${eol}`;
}

// ---------------------------------------------------------------------------------------------

/**
 * The lines removed (`- line`) and added (`+ line`; a blank line is a bare sign) between two
 * texts, in order, from a longest common subsequence of lines (config files are small).
 */
export function lineDiff(before: string, after: string): string[] {
  const a = before === '' ? [] : before.replace(/\r?\n$/, '').split(/\r?\n/);
  const b = after === '' ? [] : after.replace(/\r?\n$/, '').split(/\r?\n/);
  const removed = (line: string | undefined): string => (line ? `- ${line}` : '-');
  const added = (line: string | undefined): string => (line ? `+ ${line}` : '+');
  if (a.length * b.length > 4_000_000) return [...a.map(removed), ...b.map(added)];
  // lengths[i][j]: LCS of a[i..] and b[j..].
  const lengths: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  const diff: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) diff.push(removed(a[i++]));
    else diff.push(added(b[j++]));
  }
  while (i < a.length) diff.push(removed(a[i++]));
  while (j < b.length) diff.push(added(b[j++]));
  return diff;
}
