/**
 * The settings that point each kind of client at a router, as text to print and as merges into
 * the client's own config file. No I/O here, so other code (and the agent suites) can reuse it.
 */

/** The model clients are pointed at by default. */
export const DEFAULT_CLIENT_MODEL = 'svc.intelligent-pro';
/** The environment variable Codex and the SDK snippets read the key from (the CLI reads it too). */
export const KEY_ENV = 'SVC_ROUTER_KEY';
/** The name of the custom model provider in Codex's config. */
export const CODEX_PROVIDER = 'svc';

/** `http://host:port`, whether given with or without /v1 or a trailing slash. */
export const originOf = (url: string): string => url.replace(/\/+$/, '').replace(/\/v1$/, '');

/** A TOML basic string; JSON's escapes are all valid TOML escapes. */
const tomlString = (value: string): string => JSON.stringify(value);

function codexParts(origin: string, envKey: string): { top: Array<[string, string]>; table: Array<[string, string]> } {
  return {
    top: [
      ['model', DEFAULT_CLIENT_MODEL],
      ['model_provider', CODEX_PROVIDER],
    ],
    table: [
      ['name', 'svc-router'],
      ['base_url', `${originOf(origin)}/v1`],
      ['env_key', envKey],
      ['wire_api', 'responses'],
    ],
  };
}

/** Codex CLI's config.toml lines: the model, and a custom provider speaking the Responses API. */
export function codexConfigToml(origin: string, envKey: string = KEY_ENV): string {
  const { top, table } = codexParts(origin, envKey);
  return [
    ...top.map(([key, value]) => `${key} = ${tomlString(value)}`),
    '',
    `[model_providers.${CODEX_PROVIDER}]`,
    ...table.map(([key, value]) => `${key} = ${tomlString(value)}`),
    '',
  ].join('\n');
}

/** Claude Code's `env` settings: the router's address, the key (sent as a bearer token) and the model. */
export function claudeSettingsEnv(origin: string, key: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: originOf(origin),
    ANTHROPIC_AUTH_TOKEN: key,
    ANTHROPIC_MODEL: DEFAULT_CLIENT_MODEL,
  };
}

export function openaiSdkSnippet(origin: string, envKey: string = KEY_ENV): string {
  return [
    '// npm install openai',
    "import OpenAI from 'openai';",
    '',
    `const client = new OpenAI({ baseURL: '${originOf(origin)}/v1', apiKey: process.env.${envKey} });`,
    `const response = await client.responses.create({ model: '${DEFAULT_CLIENT_MODEL}', input: 'Say hello.' });`,
    'console.log(response.output_text);',
    '',
  ].join('\n');
}

export function anthropicSdkSnippet(origin: string, envKey: string = KEY_ENV): string {
  return [
    '// npm install @anthropic-ai/sdk',
    "import Anthropic from '@anthropic-ai/sdk';",
    '',
    `const client = new Anthropic({ baseURL: '${originOf(origin)}', apiKey: process.env.${envKey} });`,
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

/** `a . "b"` → `a.b`, so headers written with quotes or spaces still match. */
const normaliseName = (name: string): string =>
  name
    .split('.')
    .map((part) => part.trim().replace(/^"(.*)"$|^'(.*)'$/, '$1$2'))
    .join('.');

/** The bare key a `key = value` line sets, if it sets one. */
function keyOf(line: string): string | undefined {
  const match = /^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*=/.exec(line);
  return match ? normaliseName(match[1]!) : undefined;
}

interface Line {
  text: string;
  /** Normalised table name when the line is a `[table]` header; `[[array]]` headers get a marker. */
  header?: string;
  /** Inside a multi-line string: never a header or a key. */
  inString: boolean;
}

function scan(lines: string[]): Line[] {
  const scanned: Line[] = [];
  let open: '"""' | "'''" | undefined;
  for (const text of lines) {
    const inString = open !== undefined;
    let header: string | undefined;
    if (!inString) {
      if (ARRAY_HEADER.test(text)) header = '[[array]]';
      else {
        const match = HEADER.exec(text);
        if (match) header = normaliseName(match[1]!);
      }
    }
    scanned.push({ text, ...(header ? { header } : {}), inString });
    // Track multi-line strings: an odd number of delimiters on a line opens or closes one.
    for (const delimiter of ['"""', "'''"] as const) {
      if (open !== undefined && open !== delimiter) continue;
      const count = text.split(delimiter).length - 1;
      if (count % 2 === 1) open = open ? undefined : delimiter;
    }
  }
  return scanned;
}

const isContent = (line: Line): boolean => line.inString || (line.text.trim() !== '' && !line.text.trim().startsWith('#'));

/**
 * Sets the top-level `model` and `model_provider` lines and the `[model_providers.svc]` table's
 * keys in an existing config.toml, replacing the lines that set them and inserting the ones that
 * are missing. Every other line (comments, other tables, other keys of the table) stays as it was.
 */
export function mergeCodexConfig(existing: string, origin: string, envKey: string = KEY_ENV): string {
  const eol = existing.includes('\r\n') ? '\r\n' : '\n';
  const { top, table } = codexParts(origin, envKey);
  const lines = existing === '' ? [] : existing.replace(/\r?\n$/, '').split(/\r?\n/);
  const scanned = scan(lines);
  const tableName = `model_providers.${CODEX_PROVIDER}`;

  // Forms of the same setting a line-based merge would duplicate: refuse them rather than break the file.
  let current = '';
  for (const line of scanned) {
    if (line.header) current = line.header;
    else if (!line.inString) {
      const key = keyOf(line.text);
      const full = key === undefined ? undefined : current ? `${current}.${key}` : key;
      const outside = current !== tableName && !current.startsWith(`${tableName}.`);
      if (full !== undefined && outside && (full === tableName || full.startsWith(`${tableName}.`))) {
        throw new MergeError(`it sets ${tableName} as '${line.text.trim()}'; change that by hand, or write it as a [${tableName}] table`);
      }
    }
  }

  const out = scanned.map((line) => line.text);
  const firstHeader = scanned.findIndex((line) => line.header !== undefined);
  const topEnd = firstHeader === -1 ? scanned.length : firstHeader;

  // The table first (it lies after the top-level lines, so inserting there leaves topEnd valid).
  const start = scanned.findIndex((line) => line.header === tableName);
  if (start === -1) {
    const lastContent = findLastIndex(out, (text) => text.trim() !== '');
    out.length = lastContent + 1;
    if (out.length) out.push('');
    out.push(`[${tableName}]`, ...table.map(([key, value]) => `${key} = ${tomlString(value)}`));
  } else {
    let end = scanned.findIndex((line, index) => index > start && line.header !== undefined);
    if (end === -1) end = scanned.length;
    const missing: string[] = [];
    for (const [key, value] of table) {
      const at = findKeyLine(scanned, start + 1, end, key);
      if (at === -1) missing.push(`${key} = ${tomlString(value)}`);
      else out[at] = `${leadingSpace(out[at]!)}${key} = ${tomlString(value)}`;
    }
    if (missing.length) {
      let after = start;
      for (let index = start + 1; index < end; index++) if (isContent(scanned[index]!)) after = index;
      out.splice(after + 1, 0, ...missing);
    }
  }

  const missingTop: string[] = [];
  for (const [key, value] of top) {
    const at = findKeyLine(scanned, 0, topEnd, key);
    if (at === -1) missingTop.push(`${key} = ${tomlString(value)}`);
    else out[at] = `${leadingSpace(out[at]!)}${key} = ${tomlString(value)}`;
  }
  if (missingTop.length) {
    let after = -1;
    for (let index = 0; index < topEnd; index++) if (isContent(scanned[index]!)) after = index;
    const insert = [...missingTop];
    // Keep a blank line between the top-level keys and a table that follows at once.
    if (after + 1 < out.length && out[after + 1]!.trim() !== '' && after + 1 === topEnd) insert.push('');
    out.splice(after + 1, 0, ...insert);
  }
  return `${out.join(eol)}${eol}`;
}

function findKeyLine(scanned: Line[], from: number, to: number, key: string): number {
  for (let index = from; index < to; index++) {
    const line = scanned[index]!;
    if (!line.inString && !line.header && keyOf(line.text) === key) return index;
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
    let parsed: unknown;
    try {
      parsed = JSON.parse(existing);
    } catch (error) {
      throw new MergeError(`it is not valid JSON (${(error as Error).message}); fix it by hand first`);
    }
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
