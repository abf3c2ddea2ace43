/**
 * Strict JSON as the files svc-router writes hold it, read so that a file that is not valid says
 * where: the line and column of the first problem, and what it is. The message never quotes the
 * text (JSON.parse's own does, and these files hold keys).
 */

import { createRequire } from 'node:module';

export type JsonPath = ReadonlyArray<string | number>;

/** 1-based, in UTF-16 code units as editors count them. */
export interface TextPosition {
  line: number;
  column: number;
}

export interface TextProblem extends TextPosition {
  message: string;
}

export type JsonReading = { ok: true; value: unknown } | { ok: false; problem: TextProblem };

/** The text's value, or where and why it is not JSON. A leading byte order mark is allowed. */
export function readJsonText(text: string): JsonReading {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    const skipped = text.length - body.length;
    if (body.trim() === '') return { ok: false, problem: { line: 1, column: 1, message: body === '' ? 'the file is empty' : 'the file holds only white space' } };
    return { ok: false, problem: firstSyntaxProblem(body, skipped) };
  }
}

/** Where the value at `path` starts (the nearest enclosing value that exists, else the start). */
export function positionOfPath(text: string, path: JsonPath): TextPosition {
  const { parseTree, findNodeAtLocation } = jsonc();
  let node = parseTree(text, [], { disallowComments: false, allowTrailingComma: true });
  for (let length = path.length; node && length >= 0; length--) {
    const found = length === 0 ? node : findNodeAtLocation(node, [...path.slice(0, length)]);
    if (found) return positionAt(text, found.offset);
  }
  return { line: 1, column: 1 };
}

/** The position of an offset, counting lines by '\n'. */
function positionAt(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line++;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** `syntax error: property name expected`, from jsonc-parser's error code (PropertyNameExpected). */
export function syntaxMessage(code: string): string {
  return `syntax error: ${code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}`;
}

function firstSyntaxProblem(text: string, skipped: number): TextProblem {
  const { parseTree, printParseErrorCode } = jsonc();
  const errors: import('jsonc-parser').ParseError[] = [];
  parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  // JSON.parse and the scanner agree on what is JSON; should they ever not, the start is named.
  if (!first) return { line: 1, column: 1 + skipped, message: 'not valid JSON' };
  const position = positionAt(text, first.offset);
  return { line: position.line, column: position.column + (position.line === 1 ? skipped : 0), message: syntaxMessage(printParseErrorCode(first.error)) };
}

type Jsonc = typeof import('jsonc-parser');
let loaded: Jsonc | undefined;

/** The scanner, loaded only when a file is not valid: a good file costs its readers nothing more than JSON.parse. */
function jsonc(): Jsonc {
  loaded ??= createRequire(import.meta.url)('jsonc-parser') as Jsonc;
  return loaded;
}
