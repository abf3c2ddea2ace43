/** What the completion scripts read from the commander tree, shared by the three shells' renderers. */
import type { Command, Option } from 'commander';
import { completionHint, type CompletionHint } from '../completion-hints.js';

/** What the scripts offer that the command tree does not hold: the SKUs and the config keys, with their meanings. */
export interface CompletionData {
  skus: readonly string[];
  /** Config key → what it sets. */
  configKeys: Readonly<Record<string, string>>;
  /** Config key → the values worth offering for it. */
  configValues: Readonly<Record<string, readonly string[]>>;
  /** Model-name patterns offered beside the SKUs where a route is named. */
  routePatterns: readonly string[];
}

export const HELP = { flags: ['-h', '--help'], description: 'display help for command' };
export const VERSION = { flags: ['-V', '--version'], description: 'output the version number' };

/** A runnable command and its path from the program (`['routes', 'set']`). */
export interface Leaf {
  path: string[];
  command: Command;
}

export const flagsOf = (option: Option): string[] => [option.short, option.long].filter((flag): flag is string => !!flag);
export const takesValue = (option: Option): boolean => option.required || option.optional;

export function leaves(program: Command): Leaf[] {
  const found: Leaf[] = [];
  for (const command of program.commands) {
    if (command.commands.length) for (const sub of command.commands) found.push({ path: [command.name(), sub.name()], command: sub });
    else found.push({ path: [command.name()], command });
  }
  return found;
}

export const groups = (program: Command): Command[] => program.commands.filter((command) => command.commands.length > 0);

/** Every flag that takes a value, once, in the order the program defines them. */
export function valueFlags(program: Command): string[] {
  const flags = new Set<string>();
  for (const { command } of leaves(program)) for (const option of command.options) if (takesValue(option)) for (const flag of flagsOf(option)) flags.add(flag);
  return [...flags];
}

/** The first completion hint each value-taking option has, by option. */
export function optionHints(program: Command): { option: Option; hint: CompletionHint }[] {
  const seen = new Set<string>();
  const found: { option: Option; hint: CompletionHint }[] = [];
  for (const { command } of leaves(program)) {
    for (const option of command.options) {
      const hint = completionHint(option);
      const key = flagsOf(option).join(' ');
      if (!hint || !takesValue(option) || seen.has(key)) continue;
      seen.add(key);
      found.push({ option, hint });
    }
  }
  return found;
}

/** Words quoted for a POSIX shell, when they need it. */
export const shellQuote = (text: string): string => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

/** The words of a fixed hint, or undefined for a dynamic one. */
export const fixedWords = (hint: CompletionHint, data: CompletionData): readonly string[] | undefined =>
  typeof hint === 'object' ? hint.words : hint === 'skus' ? data.skus : hint === 'config-keys' ? Object.keys(data.configKeys) : undefined;

export const HEADER = '# Generated from the command tree by `npm run docs` (src/cli/completion/); do not edit by hand.';
