import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Settings } from '../../config/settings.js';
import { isSkuName, SKUS } from '../../core/model-names.js';
import { whitespaceIn } from '../../identity/key-whitespace.js';
import { claudeModelPlan } from '../claude-model-plan.js';
import { CliError, EXIT_FAILED, notInitialisedError, usageError } from '../cli-error.js';
import {
  ANTHROPIC_TOKEN_ENV,
  anthropicSdkSnippet,
  claudeSettingsEnv,
  CODEX_AUTH_COMMAND,
  codexConfigToml,
  exportLine,
  KEY_ENV,
  lineDiff,
  mergeClaudeSettings,
  mergeCodexConfig,
  MergeError,
  OPENAI_KEY_ENV,
  openaiSdkSnippet,
} from '../client-settings.js';
import { CLIENTS, CONNECT_CLIENTS, type Client } from '../connect-clients.js';
import { assertUndoable, backupPath, resolveTarget, undoClientFile, writeClientFile } from '../client-file.js';
import { GEMINI_KEY_ENV, geminiEnv, mergeDotEnv, mergeGeminiSettings } from '../gemini-settings.js';
import { maskKeys } from '../mask-keys.js';
import { chalk, printLine, warn } from '../output.js';
import { parseHttpUrl } from '../parse-options.js';
import { routerAddress } from '../router-address.js';
import { openConfig } from '../config-in-force.js';

export { CLIENTS, type Client } from '../connect-clients.js';

export interface ConnectOptions {
  write?: boolean;
  undo?: boolean;
  force?: boolean;
  baseUrl?: string;
  key?: string;
  model?: string;
}

/** Codex CLI's config file: $CODEX_HOME/config.toml, else ~/.codex/config.toml. */
export const codexConfigPath = (): string => path.join(process.env.CODEX_HOME || path.join(os.homedir(), '.codex'), 'config.toml');

/** Claude Code's user settings: $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json. */
export const claudeSettingsPath = (): string => path.join(process.env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), '.claude'), 'settings.json');

/**
 * Gemini CLI's home: $GEMINI_CLI_HOME stands for the home directory (Gemini CLI 0.61 reads
 * $GEMINI_CLI_HOME/.gemini/settings.json and .env), else the home directory.
 */
export const geminiDir = (): string => path.join(process.env.GEMINI_CLI_HOME || os.homedir(), '.gemini');
export const geminiSettingsPath = (): string => path.join(geminiDir(), 'settings.json');
export const geminiEnvPath = (): string => path.join(geminiDir(), '.env');

/** The files `connect CLIENT --write` writes, for --undo. */
const filesOf = (client: Client): string[] => (client === 'codex' ? [codexConfigPath()] : client === 'gemini' ? [geminiSettingsPath(), geminiEnvPath()] : [claudeSettingsPath()]);

/** Prints the settings that point a client at the router, or merges them into the client's config file. */
export async function runConnect(client: string, options: ConnectOptions): Promise<void> {
  if (!(CLIENTS as readonly string[]).includes(client)) throw usageError(`unknown client '${client}'; expected one of ${CLIENTS.join(', ')}`);
  for (const flag of ['write', 'undo'] as const) {
    if (options[flag] && !CONNECT_CLIENTS.find((known) => known.name === client)?.configFile) {
      const withFile = CONNECT_CLIENTS.filter((known) => known.configFile).map((known) => known.name);
      throw usageError(`--${flag} is for ${listOf(withFile)}, which have a config file; for ${client}, copy the printed snippet into your code`);
    }
  }
  if (options.model !== undefined && client !== 'gemini') throw usageError(`--model is for gemini; ${client} gets its models from the routes (svc-router connect ${client} prints them)`);
  if (options.write && options.undo) throw usageError('--write and --undo go one at a time');
  if (options.undo) return undoConnect(client as Client, filesOf(client as Client), options.force === true);
  const settings = (await openConfig()).read();
  const { origin } = routerAddress(settings, { flag: options.baseUrl !== undefined ? parseHttpUrl(options.baseUrl, '--base-url') : undefined });
  const key = options.key ?? settings.localKey;
  if (!key) throw notInitialisedError('no local key yet: run svc-router init (or svc-router serve, which creates one), or pass --key');
  if (whitespaceIn(key)) throw usageError('the key holds whitespace (at an end, inside, or written out as \\n or %20); the router would refuse it (401). Fix the key; no trailing whitespace.');

  switch (client as Client) {
    case 'codex':
      return connectCodex(origin, key, options.write === true);
    case 'claude':
      return connectClaude(origin, key, options.write === true, settings);
    case 'gemini':
      return connectGemini(origin, key, options.write === true, geminiModel(settings, options.model));
    case 'openai-sdk':
      return printSnippet(titleOf(client as Client), OPENAI_KEY_ENV, key, openaiSdkSnippet(origin));
    case 'anthropic-sdk':
      return printSnippet(titleOf(client as Client), ANTHROPIC_TOKEN_ENV, key, anthropicSdkSnippet(origin));
  }
}

const listOf = (names: string[]): string => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/** The SKU Gemini CLI asks for: --model (an svc SKU or a route's name), else the one Claude Code's main loop gets. */
function geminiModel(settings: Settings, model: string | undefined): string {
  if (model === undefined) return claudeModelPlan(settings).main;
  const known = [...new Set([...SKUS, ...Object.keys(settings.routes)])].filter(isSkuName);
  if (!known.includes(model)) throw usageError(`--model: '${model}' is not an svc SKU this router serves; expected one of ${known.join(', ')}`);
  return model;
}

const titleOf = (client: Client): string => CONNECT_CLIENTS.find((known) => known.name === client)?.title ?? client;

function connectCodex(origin: string, key: string, write: boolean): void {
  const file = codexConfigPath();
  if (write) {
    mergeInto('codex', file, (existing) => mergeCodexConfig(existing ?? '', origin, KEY_ENV), key);
  } else {
    // A TOML comment: stdout stays a file Codex can read as is.
    printLine(chalk.dim(`# Codex CLI: ${file} (svc-router connect codex --write merges this in)`));
    process.stdout.write(codexConfigToml(origin, KEY_ENV));
  }
  hint(`# Codex gets the key from ${KEY_ENV} (its auth command runs \`${CODEX_AUTH_COMMAND}\`, which prints it); set it where codex runs:`);
  hint(exportLine(KEY_ENV, key), false);
}

function connectClaude(origin: string, key: string, write: boolean, settings: Settings): void {
  const file = claudeSettingsPath();
  const plan = claudeModelPlan(settings);
  const env = claudeSettingsEnv(origin, key, plan);
  if (plan.unknownWindows.length) {
    process.stderr.write(
      `${chalk.yellow('warning:')} the context window of ${plan.unknownWindows.join(', ')} is unknown, so CLAUDE_CODE_MAX_CONTEXT_TOKENS is left out and Claude Code assumes 1M tokens. Set it (svc-router routes window ${plan.unknownWindows[0]} TOKENS), then run this again.\n`,
    );
  }
  if (write) {
    mergeInto('claude', file, (existing) => {
      const merged = mergeClaudeSettings(existing, env);
      const kept = (JSON.parse(merged) as { env: Record<string, unknown> }).env;
      if (kept.ANTHROPIC_API_KEY !== undefined) {
        process.stderr.write(
          `${chalk.yellow('warning:')} ${file} also sets ANTHROPIC_API_KEY; Claude Code sends it as x-api-key, which the router reads before the token. Remove it to use this key.\n`,
        );
      }
      return merged;
    }, key);
    printLine('Claude Code reads these settings when it starts.');
    return;
  }
  // stdout is the JSON alone (a file Claude Code can read); what to do with it goes to stderr.
  hint(`# Claude Code: the "env" block of ${file} (svc-router connect claude --write merges it in)`);
  printLine(JSON.stringify({ env }, null, 2));
  hint('# or, for one shell:');
  for (const [name, value] of Object.entries(env)) hint(exportLine(name, value), false);
}

/**
 * Gemini CLI reads the auth type and model from settings.json, and the address and key from the
 * environment or ~/.gemini/.env (GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY): the key goes in the .env
 * file (0600), never in settings.json, which is often shared.
 */
function connectGemini(origin: string, key: string, write: boolean, model: string): void {
  const settingsFile = geminiSettingsPath();
  const envFile = geminiEnvPath();
  const env = geminiEnv(origin, key);
  if (write) {
    mergeInto('gemini', settingsFile, (existing) => mergeGeminiSettings(existing, model), key);
    mergeInto('gemini', envFile, (existing) => mergeDotEnv(existing, env), key);
    // Gemini CLI keeps a variable already in its environment over the .env file's.
    for (const [name, value] of env) {
      const shell = process.env[name];
      if (shell !== undefined && shell !== value) warn(`this shell sets ${name} ${name === GEMINI_KEY_ENV ? 'to another key' : `to ${shell}`}; Gemini CLI uses it over ${envFile}. Unset it where gemini runs.`);
    }
    printLine(`Gemini CLI reads these when it starts, in a trusted folder (headless: GEMINI_CLI_TRUST_WORKSPACE=true or --skip-trust).`);
    return;
  }
  // stdout is settings.json alone; the .env lines (which hold the key) go to stderr.
  hint(`# Gemini CLI: ${settingsFile} (svc-router connect gemini --write merges this in, and writes ${envFile})`);
  process.stdout.write(mergeGeminiSettings(undefined, model));
  hint(`# and the address and key, in ${envFile} or the shell that runs gemini:`);
  for (const [name, value] of env) hint(exportLine(name, value), false);
}

/**
 * stdout is the module alone, so `connect openai-sdk > example.mjs && node example.mjs` runs in a
 * shell that ran `eval "$(svc-router env)"`; the variable it reads goes to stderr.
 */
function printSnippet(title: string, variable: string, key: string, snippet: string): void {
  hint(`# it reads ${variable}, which svc-router env exports; in the shell that runs your code: eval "$(svc-router env)", or`);
  hint(exportLine(variable, key), false);
  printLine(`// ${title}, JavaScript (an ES module, e.g. example.mjs)`);
  process.stdout.write(snippet);
}

/** A line for the person at the terminal, on stderr: stdout is the artefact (a file, a module). */
function hint(text: string, dim = true): void {
  process.stderr.write(`${dim ? chalk.dim(text) : text}\n`);
}

/**
 * Reads the client's file, merges, prints the lines that change, and writes the result atomically
 * (new files 0600; a file that now holds the key is made 0600 if others could read it), keeping
 * what it replaced for `connect CLIENT --undo`.
 */
function mergeInto(client: Client, file: string, merge: (existing: string | undefined) => string, key: string): void {
  const target = resolveTarget(file);
  const existing = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
  let merged: string;
  try {
    merged = merge(existing);
  } catch (error) {
    if (error instanceof MergeError) throw new CliError(`cannot merge into ${file}: ${error.message}`, EXIT_FAILED);
    throw error;
  }
  if (merged === existing) {
    printLine(`${file} already has these settings; nothing to change.`);
    return;
  }
  printLine(`${existing === undefined ? 'Creating' : 'Changing'} ${file}:`);
  printDiff(existing ?? '', merged, key);
  const outcome = writeClientFile(file, merged, key);
  printLine(`${chalk.green('✓')} Wrote ${file}`);
  if (outcome.tightenedFrom !== undefined) {
    warn(`${file} was mode ${octal(outcome.tightenedFrom)} and now holds your key: changed it to ${octal(outcome.mode)} (only you can read it).`);
  }
  hint(`# the previous ${existing === undefined ? 'state (no file)' : 'content'} is kept in ${outcome.backup}; svc-router connect ${client} --undo puts it back`);
}

/**
 * Puts back each file the last --write changed. Every file is checked before any is touched, so
 * a refusal (a file edited since) leaves them all as they are.
 */
function undoConnect(client: Client, files: string[], force: boolean): void {
  const undoable = files.filter((file) => assertUndoable(file, force));
  if (undoable.length === 0) {
    const backups = files.map((file) => `${file} (${backupPath(resolveTarget(file))})`).join(' or ');
    throw new CliError(`nothing to undo: no backup of ${backups} from connect ${client} --write`, EXIT_FAILED);
  }
  for (const file of undoable) undoOne(file, force);
}

function undoOne(file: string, force: boolean): void {
  const outcome = undoClientFile(file, force);
  if (outcome.status === 'no-backup') return;
  if (outcome.status === 'removed') {
    printLine(`Removing ${file} (connect --write had created it):`);
    printDiff(outcome.current ?? '', '');
    printLine(`${chalk.green('✓')} Removed ${file}`);
    return;
  }
  printLine(`Restoring ${file}:`);
  printDiff(outcome.current ?? '', outcome.content);
  printLine(`${chalk.green('✓')} Restored ${file} as it was before connect --write`);
}

/** The changed lines, with every key in them shown as its hint: the terminal's scrollback is no place for one. */
function printDiff(before: string, after: string, key?: string): void {
  for (const line of lineDiff(before, after).map((text) => maskKeys(text, key))) printLine(line.startsWith('+') ? chalk.green(line) : chalk.red(line));
}

const octal = (mode: number): string => mode.toString(8).padStart(4, '0');

