import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
/** Under bench/results/ (git-ignored), inside the project so bare imports resolve to node_modules. */
const OUT_DIR = path.join(BENCH_DIR, 'results', '.build');

/** The servers the bench starts, and what they import. */
const CHILD_SOURCES = ['fake-upstream.ts', 'upstream-replies.ts', 'bare-proxy.ts', 'router-with-eld.ts', 'frame-taps-child.ts'];

/**
 * Transpiles the child-process entries to plain JavaScript, so each server runs on bare `node`:
 * a TypeScript loader would add a hooks thread and ~40 MB to every process it measures.
 * Returns the path of each compiled entry by its source name.
 */
export function compileChildEntries(): (source: string) => string {
  fs.mkdirSync(OUT_DIR, { recursive: true });
  for (const source of CHILD_SOURCES) {
    const text = fs.readFileSync(path.join(BENCH_DIR, source), 'utf8');
    const { outputText } = ts.transpileModule(text, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: source,
    });
    fs.writeFileSync(path.join(OUT_DIR, source.replace(/\.ts$/, '.js')), outputText);
  }
  return (source) => path.join(OUT_DIR, source.replace(/\.ts$/, '.js'));
}
