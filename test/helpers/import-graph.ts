import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The import graph of the source, read with the TypeScript parser (no type checking, so it is
 * quick): every static import and re-export, type-only or not, every `import()` call and every
 * `import('…')` type. Only relative specifiers are followed; packages are outside the layers.
 */

export interface ImportEdge {
  /** Paths relative to the source root, with `/` separators and the `.ts` file name. */
  from: string;
  to: string;
  /** Erased at compile time (`import type`, `import { type X }` with only type names, `import('…').T`). */
  typeOnly: boolean;
}

/** The relative specifiers a file's text imports, and whether each import is of types only. */
export function importsOf(fileName: string, text: string): { specifier: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const onlyTypeNames = !!clause && !clause.name && !!bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: !!clause && (clause.isTypeOnly || onlyTypeNames) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const onlyTypeNames = !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly);
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly || onlyTypeNames });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push({ specifier: node.moduleReference.expression.text, typeOnly: node.isTypeOnly });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((entry) => entry.specifier.startsWith('.'));
}

/** Every `.ts` file under `root`, relative to it with `/` separators. */
export function sourceFiles(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => name.split(path.sep).join('/'))
    .sort();
}

/** The import edges between the files under `root`; an import of a file outside it is kept, named by its path from `root` (`../bench/x.ts`). */
export function readImportGraph(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const from of sourceFiles(root)) {
    for (const { specifier, typeOnly } of importsOf(from, fs.readFileSync(path.join(root, from), 'utf8'))) {
      const to = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)).replace(/\.js$/, '.ts');
      edges.push({ from, to, typeOnly });
    }
  }
  return edges;
}

/** The room a file belongs to: its top folder under the source root (`formats` for `formats/chat/x.ts`). */
export const roomOf = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '');

/**
 * The layer table of a markdown document: rows `| 3 | \`identity/\` | … |`, a number then a room.
 * Higher numbers sit higher; a room imports only from rooms with a lower number.
 */
export function layersFromTable(markdown: string): Map<string, number> {
  const layers = new Map<string, number>();
  for (const [, layer, room] of markdown.matchAll(/^\| *(\d+) *\| *`([a-z][a-z-]*)\/` *\|/gm)) {
    if (layers.has(room!)) throw new Error(`The room ${room}/ is on two rows of the layer table.`);
    layers.set(room!, Number(layer));
  }
  return layers;
}

/** Each edge between two rooms that does not go to a lower layer (up, or sideways to another room of the same layer), described for a failure message. */
export function layerViolations(edges: readonly ImportEdge[], layers: ReadonlyMap<string, number>): string[] {
  const violations: string[] = [];
  for (const edge of edges) {
    const from = roomOf(edge.from);
    const to = roomOf(edge.to);
    if (from === to) continue;
    const fromLayer = layers.get(from);
    const toLayer = layers.get(to);
    const kind = edge.typeOnly ? 'type' : 'value';
    if (fromLayer === undefined || toLayer === undefined) violations.push(`${edge.from} → ${edge.to} (${kind}): ${fromLayer === undefined ? from : to}/ is on no layer`);
    else if (toLayer > fromLayer) violations.push(`${edge.from} → ${edge.to} (${kind}): up from layer ${fromLayer} to ${toLayer}`);
    else if (toLayer === fromLayer) violations.push(`${edge.from} → ${edge.to} (${kind}): sideways within layer ${fromLayer}`);
  }
  return violations;
}

/** The import cycles (strongly connected sets of files, type imports included) whose files lie in more than one folder. */
export function crossFolderCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    if (!next.has(to)) next.set(to, []);
    next.get(from)!.push(to);
  }
  // Tarjan's strongly connected components, iteratively so a long chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; child: number }[] = [{ node: start, child: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1]!;
      const children = next.get(top.node)!;
      if (top.child < children.length) {
        const child = children[top.child++]!;
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(child)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== top.node);
        components.push(component.sort());
      }
    }
  }
  return components.filter((component) => new Set(component.map((file) => path.posix.dirname(file))).size > 1);
}
