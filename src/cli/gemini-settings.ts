/**
 * What points Gemini CLI at a router, as text merged into its two files: `~/.gemini/settings.json`
 * (the auth type and the model) and `~/.gemini/.env` (the address and the key, which Gemini CLI
 * reads only from the environment or an .env file). No I/O here, so doctor reuses it.
 */

import { applyEdits, modify, parseTree, findNodeAtLocation, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { syntaxMessage } from '../files/json-text.js';
import { MergeError, originOf } from './client-settings.js';

/** Gemini CLI (0.61) and the Google GenAI SDK take the API root without a version; they add /v1beta. */
export const GEMINI_BASE_URL_ENV = 'GOOGLE_GEMINI_BASE_URL';
export const GEMINI_KEY_ENV = 'GEMINI_API_KEY';
/** The auth type that sends GEMINI_API_KEY as x-goog-api-key (Gemini CLI's `AuthType.USE_GEMINI`). */
export const GEMINI_AUTH_TYPE = 'gemini-api-key';

/** The .env lines, in the order they are written. */
export function geminiEnv(origin: string, key: string): Array<[string, string]> {
  return [
    [GEMINI_BASE_URL_ENV, originOf(origin)],
    [GEMINI_KEY_ENV, key],
  ];
}

/** The settings.json values connect writes, by path. */
export const geminiSettingsValues = (model: string): Array<[string[], string]> => [
  [['security', 'auth', 'selectedType'], GEMINI_AUTH_TYPE],
  [['model', 'name'], model],
];

/**
 * settings.json with the auth type and model set, everything else (comments included: Gemini CLI
 * reads the file through strip-json-comments) left as it was. Refuses a file Gemini CLI could not
 * read, or one where a parent of our keys is not an object.
 */
export function mergeGeminiSettings(existing: string | undefined, model: string): string {
  const values = geminiSettingsValues(model);
  if (existing === undefined || existing.trim() === '') {
    const fresh: Record<string, unknown> = {};
    for (const [path, value] of values) setPath(fresh, path, value);
    return `${JSON.stringify(fresh, null, 2)}\n`;
  }
  const errors: ParseError[] = [];
  // Comments yes, trailing commas no: what strip-json-comments (defaults) and JSON.parse accept.
  const root = parseTree(existing, errors, { disallowComments: false, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first || !root) {
    const { line, column } = positionAt(existing, first?.offset ?? 0);
    // Where, not what: the file may hold secrets of its own.
    throw new MergeError(`it is not valid JSON (line ${line}, column ${column}: ${first ? syntaxMessage(printParseErrorCode(first.error)) : 'no value'}); fix it by hand first`);
  }
  if (root.type !== 'object') throw new MergeError('it does not hold a JSON object');
  const eol = existing.includes('\r\n') ? '\r\n' : '\n';
  const indent = /\n([ \t]+)"/.exec(existing)?.[1] ?? '  ';
  const formattingOptions = { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol };
  let text = existing;
  for (const [path, value] of values) {
    for (let depth = 1; depth < path.length; depth++) {
      const parent = findNodeAtLocation(parseTree(text)!, path.slice(0, depth));
      if (parent && parent.type !== 'object') throw new MergeError(`its "${path.slice(0, depth).join('.')}" is not an object (an older settings format?); set ${path.join('.')} by hand`);
    }
    const current = findNodeAtLocation(parseTree(text)!, path);
    if (current?.type === 'string' && current.value === value) continue;
    text = applyEdits(text, modify(text, path, value, { formattingOptions }));
  }
  return text;
}

function setPath(target: Record<string, unknown>, path: string[], value: string): void {
  let node = target;
  for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[path.at(-1)!] = value;
}

function positionAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/** A line that sets NAME in dotenv's syntax (`NAME=v`, `export NAME=v`, `NAME: v`). */
const assignment = (name: string): RegExp => new RegExp(`^\\s*(?:export\\s+)?${name.replace(/[.]/g, '\\.')}\\s*(?:=|:\\s)`);

/**
 * An .env file with `pairs` set: the first line that sets each name is replaced, later ones (which
 * would win, as dotenv keeps the last) are removed, missing names are appended; every other line stays.
 */
export function mergeDotEnv(existing: string | undefined, pairs: Array<[string, string]>): string {
  const eol = existing?.includes('\r\n') ? '\r\n' : '\n';
  const lines = existing === undefined || existing === '' ? [] : existing.replace(/\r?\n$/, '').split(/\r?\n/);
  const out: Array<string | undefined> = [...lines];
  for (const [name, value] of pairs) {
    const pattern = assignment(name);
    const at = lines.map((line, index) => (pattern.test(line) ? index : -1)).filter((index) => index !== -1);
    if (at.length === 0) {
      out.push(`${name}=${value}`);
      continue;
    }
    out[at[0]!] = `${name}=${value}`;
    for (const index of at.slice(1)) out[index] = undefined;
  }
  return `${out.filter((line) => line !== undefined).join(eol)}${eol}`;
}

/** The values an .env file sets, as dotenv reads them (the last assignment wins; quotes and `# comments` dropped). */
export function readDotEnv(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([\w.-]+)\s*(?:=|:\s)\s*(.*)$/.exec(line);
    if (!match) continue;
    const raw = match[2]!.trim();
    const quoted = /^(['"`])(.*)\1$/.exec(raw);
    values[match[1]!] = quoted ? quoted[2]! : raw.replace(/\s+#.*$/, '').trim();
  }
  return values;
}
