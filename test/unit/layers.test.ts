import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crossFolderCycles, importsOf, layersFromTable, layerViolations, readImportGraph, roomOf, type ImportEdge } from '../helpers/import-graph.js';

/**
 * The layers: each room of src/ imports only from rooms below it, type imports included, and no
 * import cycle spans two folders. The order is written once, in the table of docs/architecture.md
 * ("The layers"), which this reads; the docs and this check cannot disagree.
 */

const root = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(root, 'src');
const LAYERS = layersFromTable(fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));
const GRAPH = readImportGraph(SRC);

describe('the layer table in docs/architecture.md', () => {
  it('puts core at the bottom, files/ alone just above it, and cli on top', () => {
    const sorted = [...LAYERS].sort((a, b) => a[1] - b[1]);
    expect(sorted[0]).toEqual(['core', 1]);
    expect(sorted.filter(([, layer]) => layer === 1)).toHaveLength(1);
    expect(sorted.filter(([, layer]) => layer === 2)).toEqual([['files', 2]]);
    expect(sorted.at(-1)).toEqual(['cli', Math.max(...LAYERS.values())]);
    expect(sorted.filter(([, layer]) => layer === LAYERS.get('cli'))).toHaveLength(1);
  });

  it('places every room of src/ on a layer, and no file outside a room', () => {
    const entries = fs.readdirSync(SRC, { withFileTypes: true });
    const unplaced = entries.filter((entry) => entry.isDirectory() && !LAYERS.has(entry.name)).map((entry) => `${entry.name}/`);
    const loose = entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
    expect(unplaced).toEqual([]);
    expect(loose).toEqual([]);
  });

  it('names no room that src/ does not have', () => {
    const rooms = new Set(fs.readdirSync(SRC, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name));
    expect([...LAYERS.keys()].filter((room) => !rooms.has(room)).map((room) => `${room}/`)).toEqual([]);
  });
});

describe('imports in src/', () => {
  it('are read: the graph holds value and type imports between rooms', () => {
    expect(GRAPH.length).toBeGreaterThan(500);
    expect(GRAPH.some((edge) => edge.typeOnly && roomOf(edge.from) !== roomOf(edge.to))).toBe(true);
    expect(GRAPH.some((edge) => !edge.typeOnly && roomOf(edge.from) !== roomOf(edge.to))).toBe(true);
  });

  it('stay inside src/', () => {
    expect(GRAPH.filter((edge) => edge.to.startsWith('../')).map((edge) => `${edge.from} → ${edge.to}`)).toEqual([]);
  });

  it('go only down the layers: never up, never sideways to another room of the same layer', () => {
    expect(layerViolations(GRAPH, LAYERS)).toEqual([]);
  });

  it('form no cycle across folders, type imports included', () => {
    expect(crossFolderCycles(GRAPH)).toEqual([]);
  });
});

describe('the check itself', () => {
  const SAMPLE = `
    import { a } from './a.js';
    import type { B } from '../b.js';
    import { type C, type D } from './c.js';
    import { type E, f } from './e.js';
    import './side-effect.js';
    export * from './star.js';
    export type { G } from './g.js';
    export { h } from './h.js';
    import { outside } from 'node:fs';
    const loaded = () => import('./lazy.js');
    let client: typeof import('./typeof.js');
    let entry: import('./type-query.js').Entry;
  `;

  it('reads every form of import, and tells type imports from value imports', () => {
    expect(importsOf('x.ts', SAMPLE)).toEqual([
      { specifier: './a.js', typeOnly: false },
      { specifier: '../b.js', typeOnly: true },
      { specifier: './c.js', typeOnly: true },
      { specifier: './e.js', typeOnly: false },
      { specifier: './side-effect.js', typeOnly: false },
      { specifier: './star.js', typeOnly: false },
      { specifier: './g.js', typeOnly: true },
      { specifier: './h.js', typeOnly: false },
      { specifier: './lazy.js', typeOnly: false },
      { specifier: './typeof.js', typeOnly: true },
      { specifier: './type-query.js', typeOnly: true },
    ]);
  });

  const layers = new Map([
    ['core', 1],
    ['formats', 4],
    ['backends', 4],
    ['handlers', 6],
  ]);
  const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly });

  it('fails an import up a layer, a type import as much as a value import', () => {
    expect(layerViolations([edge('formats/messages/messages-format.ts', 'handlers/count-tokens.ts')], layers)).toHaveLength(1);
    expect(layerViolations([edge('core/request.ts', 'formats/registry.ts', true)], layers)).toHaveLength(1);
  });

  it('fails an import sideways between two rooms of one layer, and one from or to a room on no layer', () => {
    expect(layerViolations([edge('backends/backend.ts', 'formats/registry.ts', true)], layers)).toHaveLength(1);
    expect(layerViolations([edge('handlers/x.ts', 'policies/y.ts')], layers)).toHaveLength(1);
  });

  it('passes imports down the layers and within a room', () => {
    expect(layerViolations([edge('handlers/a.ts', 'formats/b.ts'), edge('formats/chat/a.ts', 'core/b.ts', true), edge('formats/chat/a.ts', 'formats/shared/b.ts')], layers)).toEqual([]);
  });

  it('finds a cycle that spans folders, and only such a cycle', () => {
    const cycle = [edge('routing/a.ts', 'formats/b.ts', true), edge('formats/b.ts', 'formats/shared/c.ts'), edge('formats/shared/c.ts', 'routing/a.ts')];
    expect(crossFolderCycles(cycle)).toEqual([['formats/b.ts', 'formats/shared/c.ts', 'routing/a.ts']]);
    expect(crossFolderCycles([edge('formats/a.ts', 'formats/b.ts'), edge('formats/b.ts', 'formats/a.ts')])).toEqual([]);
    expect(crossFolderCycles(cycle.slice(0, 2))).toEqual([]);
  });
});
