import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Settings } from '../../config/settings.js';
import { ConfigStore } from '../../config/store.js';
import { claudeModelPlan } from '../claude-model-plan.js';
import { CliError, EXIT_FAILED, usageError } from '../cli-error.js';
import {
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
  openaiSdkSnippet,
  originOf,
} from '../client-settings.js';
import { CLIENTS, CONNECT_CLIENTS, type Client } from '../connect-clients.js';
import { chalk, printLine } from '../output.js';
import { parseHttpUrl } from '../parse-options.js';
import { defaultRouterOrigin } from '../router-origin.js';

export { CLIENTS, type Client } from '../connect-clients.js';

export interface ConnectOptions {
  write?: boolean;
  baseUrl?: string;
  key?: string;
}

/** Codex CLI's config file: $CODEX_HOME/config.toml, else ~/.codex/config.toml. */
export const codexConfigPath = (): string => path.join(process.env.CODEX_HOME || path.join(os.homedir(), '.codex'), 'config.toml');

/** Claude Code's user settings: $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json. */
export const claudeSettingsPath = (): string => path.join(process.env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), '.claude'), 'settings.json');

/** Prints the settings that point a client at the router, or merges them into the client's config file. */
export function runConnect(client: string, options: ConnectOptions): void {
  if (!(CLIENTS as readonly string[]).includes(client)) throw usageError(`unknown client '${client}'; expected one of ${CLIENTS.join(', ')}`);
  if (options.write && !CONNECT_CLIENTS.find((known) => known.name === client)?.configFile) {
    const withFile = CONNECT_CLIENTS.filter((known) => known.configFile).map((known) => known.name);
    throw usageError(`--write is for ${withFile.join(' and ')}, which have a config file; for ${client}, copy the printed snippet into your code`);
  }
  const settings = new ConfigStore().read();
  const origin = originOf(options.baseUrl !== undefined ? parseHttpUrl(options.baseUrl, '--base-url') : defaultRouterOrigin(settings));
  const key = options.key ?? settings.localKey;
  if (!key) throw usageError('no local key yet: run svc-router init (or svc-router serve, which creates one), or pass --key');
  if (/^\s|\s$/u.test(key)) throw usageError('the key has leading or trailing whitespace; the router would refuse it (401). Fix the key; no trailing whitespace.');

  switch (client as Client) {
    case 'codex':
      return connectCodex(origin, key, options.write === true);
    case 'claude':
      return connectClaude(origin, key, options.write === true, settings);
    case 'openai-sdk':
      return printSnippet(titleOf(client as Client), key, openaiSdkSnippet(origin, KEY_ENV));
    case 'anthropic-sdk':
      return printSnippet(titleOf(client as Client), key, anthropicSdkSnippet(origin, KEY_ENV));
  }
}

const titleOf = (client: Client): string => CONNECT_CLIENTS.find((known) => known.name === client)?.title ?? client;

function connectCodex(origin: string, key: string, write: boolean): void {
  const file = codexConfigPath();
  if (write) {
    mergeInto(file, (existing) => mergeCodexConfig(existing ?? '', origin, KEY_ENV));
  } else {
    printLine(chalk.dim(`# Codex CLI: ${file} (svc-router connect codex --write merges this in)`));
    process.stdout.write(codexConfigToml(origin, KEY_ENV));
  }
  printLine();
  printLine(chalk.dim(`# Codex gets the key from ${KEY_ENV} (its auth command runs \`${CODEX_AUTH_COMMAND}\`, which prints it); set it where codex runs:`));
  printLine(exportLine(KEY_ENV, key));
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
    mergeInto(file, (existing) => {
      const merged = mergeClaudeSettings(existing, env);
      const kept = (JSON.parse(merged) as { env: Record<string, unknown> }).env;
      if (kept.ANTHROPIC_API_KEY !== undefined) {
        process.stderr.write(
          `${chalk.yellow('warning:')} ${file} also sets ANTHROPIC_API_KEY; Claude Code sends it as x-api-key, which the router reads before the token. Remove it to use this key.\n`,
        );
      }
      return merged;
    });
    printLine('Claude Code reads these settings when it starts.');
    return;
  }
  printLine(chalk.dim(`# Claude Code: the "env" block of ${file} (svc-router connect claude --write merges it in)`));
  printLine(JSON.stringify({ env }, null, 2));
  printLine();
  printLine(chalk.dim('# or, for one shell:'));
  for (const [name, value] of Object.entries(env)) printLine(exportLine(name, value));
}

function printSnippet(title: string, key: string, snippet: string): void {
  printLine(chalk.dim('# in the shell that runs your code:'));
  printLine(exportLine(KEY_ENV, key));
  printLine();
  printLine(chalk.dim(`# ${title}, JavaScript (an ES module, e.g. example.mjs):`));
  process.stdout.write(snippet);
}

/**
 * Reads the client's file, merges, prints the lines that change, and writes the result atomically
 * (same directory, then rename), keeping the file's mode; a new file is created 0600.
 */
function mergeInto(file: string, merge: (existing: string | undefined) => string): void {
  // Write through a symlink (dotfile managers) rather than replacing it.
  const target = fs.existsSync(file) ? fs.realpathSync(file) : file;
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
  for (const line of lineDiff(existing ?? '', merged)) printLine(line.startsWith('+') ? chalk.green(line) : chalk.red(line));
  const mode = existing === undefined ? 0o600 : fs.statSync(target).mode & 0o777;
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, merged, { mode });
    fs.chmodSync(temporary, mode);
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw new CliError(`cannot write ${file}: ${(error as Error).message}`, EXIT_FAILED);
  }
  printLine(`${chalk.green('✓')} Wrote ${file}`);
}

