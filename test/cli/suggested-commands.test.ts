import path from 'node:path';
import { CommanderError, type Argument, type Command, type Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '../../src/cli/commands/config.js';
import { completionHint } from '../../src/cli/completion-hints.js';
import { buildProgram } from '../../src/cli/program.js';
import { DEFAULT_SETTINGS, withDefaults } from '../../src/config/settings.js';
import { isAnthropicModelId, isRoutableModelName, SKUS } from '../../src/core/model-names.js';
import { skuTypoOf } from '../../src/core/sku-typo.js';
import { PACKAGE_VERSION, ROOT } from './run-cli.js';
import { commandsIn, FILLED, isPlaceholder, suggestionsIn, type Suggestion } from './suggested-commands.js';

/**
 * Every command the program's text suggests (an error's fix, a hint, a help example, a doctor
 * remedy) is one the real commander program accepts: the command exists, its options exist and
 * take what is given, its required options are there, and a literal config key, SKU or route name
 * is one the command takes. Placeholders (SLUG, TOKENS, what a template fills in) get a sample
 * value that fits where they stand.
 */

/** Words that follow the product's name in prose or in a label, never a command. */
const PROSE = new Set(['is', 'runs', 'wrote', 'itself', 'answers', 'stores', 'listening', 'key>', 'configuration', 'reasoning', 'dashboard']);

const SUGGESTIONS = suggestionsIn(path.join(ROOT, 'src')).filter((suggestion) => !PROSE.has(suggestion.words[0]!));

/** The sample a placeholder becomes where it stands: a choice when there are choices. */
function sampleFor(item: Option | Argument | undefined): string {
  const hint = item && completionHint(item);
  if (hint && typeof hint === 'object') return hint.words[0]!;
  if (hint === 'skus' || hint === 'route-models') return SKUS[0];
  return 'sample';
}

interface Parsed {
  leaf: Command;
  argv: string[];
  /** Each value with the option or argument it was given to (placeholders too). */
  values: Array<{ item: Option | Argument; value: string; index?: number }>;
  /** The command's positional words, placeholders included, in order. */
  positionals: string[];
  flags: string[];
}

/**
 * Walks the words down the command tree, then through the leaf's options and arguments; a word
 * past the last argument ends the command (running text goes on after it).
 */
function parse(program: Command, words: string[]): Parsed | string {
  let command = program;
  let at = 0;
  while (command.commands.length) {
    const word = words[at];
    const next = command.commands.find((child) => child.name() === word || child.aliases().includes(word ?? ''));
    if (!next) return word === undefined && command !== program ? { leaf: command, argv: words.slice(0, at), values: [], positionals: [], flags: [] } : `unknown command '${word}' under '${command.name()}'`;
    command = next;
    at++;
  }
  const parsed: Parsed = { leaf: command, argv: words.slice(0, at), values: [], positionals: [], flags: [] };
  const argumentsOf = command.registeredArguments;
  while (at < words.length) {
    const word = words[at++]!;
    if (word.startsWith('-') && word.length > 1) {
      const [flag, inline] = word.split(/=(.*)/s) as [string, string | undefined];
      const option = command.options.find((known) => known.long === flag || known.short === flag);
      if (!option) return `unknown option '${flag}' for '${command.name()}'`;
      parsed.argv.push(flag);
      parsed.flags.push(option.attributeName());
      if (!option.required && !option.optional) continue;
      const values = inline !== undefined ? [inline] : [];
      while (inline === undefined && at < words.length && !words[at]!.startsWith('-') && (values.length === 0 || option.variadic)) values.push(words[at++]!);
      if (values.length === 0 && option.required) return `option '${flag}' needs a value`;
      for (const value of values) {
        parsed.argv.push(isPlaceholder(value) ? sampleFor(option) : value);
        parsed.values.push({ item: option, value });
      }
      continue;
    }
    const index = Math.min(parsed.positionals.length, argumentsOf.length - 1);
    const argument = argumentsOf[index];
    if (!argument || (parsed.positionals.length >= argumentsOf.length && !argument.variadic)) break; // running text
    parsed.positionals.push(word);
    parsed.argv.push(isPlaceholder(word) ? sampleFor(argument) : word);
    parsed.values.push({ item: argument, value: word, index: parsed.positionals.length - 1 });
  }
  return parsed;
}

/** What commander's parse cannot know: config keys and values, SKU and route names. */
function checkValues(parsed: Parsed): string | undefined {
  const keyWord = parsed.positionals[0];
  for (const { item, value, index } of parsed.values) {
    const hint = completionHint(item);
    // A key partly written out (`prices.MODEL`) must still name a key; a value wholly a placeholder is the reader's to fill.
    if (hint === 'config-keys' && !isWhollyPlaceholder(value) && !configKeyMatches(value)) return `'${value}' is not a config key (${Object.keys(SETTING_KEYS).join(', ')})`;
    if (isPlaceholder(value)) continue;
    if (hint === 'config-keys' && !configKeyMatches(value)) return `'${value}' is not a config key (${Object.keys(SETTING_KEYS).join(', ')})`;
    if (hint === 'config-value' && keyWord && !isPlaceholder(keyWord) && Object.hasOwn(SETTING_KEYS, keyWord)) {
      try {
        SETTING_KEYS[keyWord]!.set(withDefaults(structuredClone(DEFAULT_SETTINGS)), value);
      } catch (error) {
        return `config set ${keyWord} refuses '${value}': ${(error as Error).message}`;
      }
    }
    if (hint === 'skus' && !(SKUS as readonly string[]).includes(value) && !isAnthropicModelId(value)) return `'${value}' is not a model the router serves`;
    if (hint === 'route-models' && index === 0) {
      if (!isRoutableModelName(value) || skuTypoOf(value)) return `'${value}' is not a routable model name`;
      const isNewSku = value.startsWith('svc.') && !(SKUS as readonly string[]).includes(value);
      if (isNewSku && parsed.leaf.name() === 'set' && !parsed.flags.includes('new')) return `'${value}' is a new SKU: routes set needs --new for it`;
    }
  }
  return undefined;
}

const isWhollyPlaceholder = (word: string): boolean => /^(…|\.\.\.)$/.test(word) || /^[A-Z][A-Z_]*$/.test(word) || word.replaceAll(FILLED, '') === '';

/** A config key, or a pattern of one whose upper-case parts are placeholders (`defaults.NAME`). */
function configKeyMatches(word: string): boolean {
  if (!isPlaceholder(word)) return Object.hasOwn(SETTING_KEYS, word);
  const pattern = new RegExp(`^${word.split(FILLED).join('[^.]+').replace(/\./g, '\\.').replace(/[A-Z][A-Z_]*/g, '[^.]+')}$`);
  return Object.keys(SETTING_KEYS).some((key) => pattern.test(key));
}

/** Runs the real program over the words, its actions replaced by nothing: commander's own checks. */
async function commanderAccepts(argv: string[]): Promise<string | undefined> {
  const program = buildProgram(PACKAGE_VERSION);
  const quiet = (command: Command): void => {
    command.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
    if (!command.commands.length) command.action(() => {});
    command.commands.forEach(quiet);
  };
  quiet(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return undefined;
  } catch (error) {
    if (error instanceof CommanderError && error.code === 'commander.help') return undefined; // a command group alone shows its help
    return error instanceof CommanderError ? error.message : String(error);
  }
}

async function problemWith(suggestion: Suggestion): Promise<string | undefined> {
  const parsed = parse(buildProgram(PACKAGE_VERSION), suggestion.words);
  if (typeof parsed === 'string') return parsed;
  return checkValues(parsed) ?? (await commanderAccepts(parsed.argv));
}

describe('the commands the program suggests', () => {
  it('are found in its messages (the collector works)', () => {
    expect(SUGGESTIONS.length).toBeGreaterThan(50);
    const words = SUGGESTIONS.map((suggestion) => suggestion.words.join(' '));
    expect(words).toContain('keys issue --developer SLUG');
    expect(words.some((line) => line.startsWith('routes window '))).toBe(true);
  });

  it.each(SUGGESTIONS.map((suggestion) => [`${suggestion.where}: svc-router ${suggestion.words.join(' ')}`, suggestion] as const))('%s', async (_name, suggestion) => {
    expect(await problemWith(suggestion), suggestion.context).toBeUndefined();
  });
});

describe('the checker catches the next wrong hint', () => {
  const check = (text: string) => problemWith({ where: 'example', context: text, words: commandsIn(text)[0]! });
  it.each([
    ['add one: svc-router config set prices.MODEL …', /not a config key/],
    ['run svc-router confg set server.port 80', /unknown command 'confg'/],
    ['run svc-router keys issue --dev SLUG', /unknown option '--dev'/],
    ['run svc-router keys issue', /required option/],
    ['run svc-router config set server.metrics maybe', /refuses 'maybe'/],
    ['run svc-router connect emacs', /invalid/],
    ['run svc-router routes set svc.inteligent-basic local:x', /not a routable model name/],
    ['run svc-router routes set svc.team-search local:x', /needs --new/],
    ['run `svc-router chat -m gpt-4o hi`', /not a model the router serves/],
  ])('%s', async (text, problem) => {
    expect(await check(text)).toMatch(problem);
  });

  it.each(['see svc-router keys list shows who has one', 'run svc-router routes window svc.intelligent-pro TOKENS (or …)', 'svc-router prices set MODEL --input USD --output USD', 'svc-router config set defaults.NAME VALUE'])(
    'accepts %s',
    async (text) => {
      expect(await check(text)).toBeUndefined();
    },
  );
});
