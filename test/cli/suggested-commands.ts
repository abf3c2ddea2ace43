import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The `svc-router …` commands the program's own text suggests: every string literal and template
 * in src/ is read (with the TypeScript parser, so comments are not), each `svc-router WORD…` in it
 * is cut where the command ends, and what a template fills in at run time becomes a placeholder.
 */

/** Stands for a `${…}` substitution in a template. */
export const FILLED = '\u2039FILLED\u203a';

export interface Suggestion {
  /** src-relative file and line, for the failure message. */
  where: string;
  /** The literal's text around the command. */
  context: string;
  /** The command's words after `svc-router`, shell quotes removed. */
  words: string[];
}

/** Every string literal and template of a TypeScript file, with its line. */
export function stringsOf(file: string): Array<{ text: string; line: number }> {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Array<{ text: string; line: number }> = [];
  const visit = (node: ts.Node): void => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateExpression(node)) text = node.head.text + node.templateSpans.map((span) => FILLED + span.literal.text).join('');
    if (text !== undefined) found.push({ text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    // A template's spans are read as part of it; their own literals are not strings of their own.
    if (!ts.isTemplateExpression(node)) ts.forEachChild(node, visit);
    else node.templateSpans.forEach((span) => visit(span.expression));
  };
  visit(source);
  return found;
}

/**
 * Where a suggested command ends in running text: a closing quote or bracket, a clause break, a
 * shell operator or comment, the end of a sentence. (A `.` inside a word, as in
 * `svc.intelligent-pro` or `server.port`, is not an end.)
 */
const COMMAND_END = /`|\)|;|,\s|, |:\s|\s—\s|\s·\s|\s\|\|?\s|\s>\s|\s&&\s|\s#|\n|\.(\s|$)|\s\(|\s+or\s|\s+then\s|"/;

/** The commands suggested in one piece of text. */
export function commandsIn(text: string): string[][] {
  const commands: string[][] = [];
  // Not a path or a file name (node_modules/svc-router/…, svc-router.schema.json) and not a flag.
  for (const match of text.matchAll(/(?<![\w/.@-])svc-router[ \t]+(?=[a-z])/g)) {
    const rest = text.slice(match.index + match[0].length);
    const end = rest.search(COMMAND_END);
    commands.push(shellWords(end === -1 ? rest : rest.slice(0, end)));
  }
  return commands;
}

/** Splits on blanks, keeping '…' and "…" together and dropping the quotes. */
function shellWords(text: string): string[] {
  return [...text.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

/** Every .ts file under a directory. */
function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? tsFiles(file) : entry.name.endsWith('.ts') ? [file] : [];
  });
}

export function suggestionsIn(srcDir: string): Suggestion[] {
  const suggestions: Suggestion[] = [];
  for (const file of tsFiles(srcDir)) {
    for (const { text, line } of stringsOf(file)) {
      for (const words of commandsIn(text)) {
        suggestions.push({ where: `${path.relative(srcDir, file)}:${line}`, context: text.length > 200 ? `${text.slice(0, 200)}…` : text, words });
      }
    }
  }
  return suggestions;
}

/**
 * A word that stands for a value the reader fills in: what a template fills in, an ellipsis, or an
 * upper-case name (`SLUG`, `TOKENS`, `BACKEND[:MODEL]`, `TARGET...`, `prices.MODEL`'s `MODEL`).
 */
export const isPlaceholder = (word: string): boolean => word.includes(FILLED) || /^(…|\.\.\.)$/.test(word) || /(^|[.:[])[A-Z][A-Z_]*(\]|\.\.\.|…)?$/.test(word) || /^[A-Z][A-Z_]+(\[|=)/.test(word);
