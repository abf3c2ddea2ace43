/**
 * Reads a declarative file's text: JSON with comments and trailing commas allowed (as tsconfig.json
 * and VS Code settings), kept as a tree so every problem can name the line and column of its value.
 */

import { getLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { syntaxMessage, type JsonPath } from '../../files/json-text.js';

export type { JsonPath };

export interface Problem {
  path: JsonPath;
  line: number;
  column: number;
  message: string;
}

export interface ParsedFile {
  /** The file's value, objects without a prototype (a name such as `__proto__` is an entry). */
  value: unknown;
  root: Node | undefined;
  /** Syntax errors and duplicate names; the value is not used when there are any. */
  problems: Problem[];
  /** 1-based line and column of an offset in the text. */
  position(offset: number): { line: number; column: number };
}

export function parseFile(text: string): ParsedFile {
  const lineStarts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lineStarts.push(index + 1);
  const position = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - lineStarts[low]! + 1 };
  };

  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const problems: Problem[] = errors.map((error) => ({
    path: getLocation(text, error.offset).path.filter((segment) => segment !== ''),
    ...position(error.offset), message: syntaxMessage(printParseErrorCode(error.error)) }));
  const value = root ? valueOf(root, [], problems, position) : undefined;
  return { value, root, problems, position };
}

/** The node's value; a name given twice in one object is a problem, since only one could be kept. */
function valueOf(node: Node, path: JsonPath, problems: Problem[], position: ParsedFile['position']): unknown {
  if (node.type === 'array') return (node.children ?? []).map((child, index) => valueOf(child, [...path, index], problems, position));
  if (node.type !== 'object') return node.value;
  const object: Record<string, unknown> = Object.create(null);
  for (const property of node.children ?? []) {
    const [name, child] = property.children ?? [];
    if (!name || typeof name.value !== 'string') continue;
    if (Object.hasOwn(object, name.value)) {
      problems.push({ path: [...path, name.value], ...position(name.offset), message: `"${name.value}" is given twice in one object; only one can be kept` });
    }
    object[name.value] = child ? valueOf(child, [...path, name.value], problems, position) : undefined;
  }
  return object;
}

/**
 * Where a path points: the value's node, else (a field that is missing) the nearest object or
 * array that exists on the way. `key` points at a property's name instead of its value.
 */
export function locate(root: Node | undefined, path: JsonPath, key = false): Node | undefined {
  let node = root;
  for (const segment of path) {
    if (!node) return undefined;
    const next = childAt(node, segment, key && segment === path.at(-1));
    if (!next) return node;
    node = next;
  }
  return node;
}

function childAt(node: Node, segment: string | number, wantKey: boolean): Node | undefined {
  if (node.type === 'array' && typeof segment === 'number') return node.children?.[segment];
  if (node.type !== 'object') return undefined;
  // The last property of a name is the one kept, as in the value.
  const property = (node.children ?? []).findLast((child) => child.children?.[0]?.value === segment);
  return wantKey ? property?.children?.[0] : property?.children?.[1];
}

/** `routes.svc.intelligent-pro[1]`, as a person reads a path. */
export function formatPath(path: JsonPath): string {
  let text = '';
  for (const segment of path) text += typeof segment === 'number' ? `[${segment}]` : text ? `.${segment}` : segment;
  return text || '(the file)';
}
