import fs from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { codexModelCatalogJson } from '../../src/cli/codex-model-catalog.js';
import type { SessionScript } from './cache-session.js';
import { baseEnv, CLAUDE_QUIET_ENV, codexExecArgs, readIfExists, runAgent, tempRoot, type AgentRun, type Cleanups } from './run-agent.js';

/**
 * The real agents running one multi-turn session each, against whatever origin they are given
 * (the router, or a fake upstream itself): four tool turns and a final answer, with workspace
 * files big enough that every turn's prompt grows by a real amount.
 */

export const FINAL = 'FINAL-CACHE-ANSWER-7';
const PROMPT = 'Follow the steps the tools lead you through, then report the final answer.';

/** A Claude Code session's extras: a PostToolUse hook that adds context after every tool, an image the Read tool returns. */
export interface ClaudeExtras {
  hook?: boolean;
  image?: boolean;
}

/** What the hook adds after each tool call; the upstream must see it. */
export const HOOK_CONTEXT = 'Hook note: the workspace is a test fixture; keep following the steps.';

export interface Workspace {
  root: string;
  home: string;
  cwd: string;
}

/** A fresh HOME and working directory holding the files the scripted steps read. */
export function workspace(cleanups: Cleanups, prefix: string): Workspace {
  const dirs = tempRoot(cleanups, prefix);
  const lines = Array.from({ length: 60 }, (_, i) => `note ${i + 1}: the cache session reads this line back as part of a tool result.`);
  fs.writeFileSync(path.join(dirs.cwd, 'notes.txt'), `${lines.join('\n')}\n`);
  fs.writeFileSync(path.join(dirs.cwd, 'chart.png'), png(48, 32));
  return dirs;
}

/** Claude Code's steps: Bash, Bash, Bash (or Read of the image), Bash. */
export function claudeScript(cwd: string, extras: ClaudeExtras): SessionScript {
  const bash = (command: string, description: string) => ({ name: 'Bash', input: { command, description } });
  return {
    mainTool: 'Bash',
    steps: [
      bash('echo step-1 && seq 1 60', 'count to sixty'),
      bash('cat notes.txt', 'read the notes'),
      extras.image ? { name: 'Read', input: { file_path: path.join(cwd, 'chart.png') } } : bash('ls -la && wc -l notes.txt', 'list the files'),
      bash('echo step-4 && seq 61 120', 'count on'),
    ],
    final: FINAL,
  };
}

/** Codex's steps, all through its exec_command tool. */
export function codexScript(): SessionScript {
  const exec = (cmd: string) => ({ name: 'exec_command', input: { cmd } });
  return {
    mainTool: 'exec_command',
    steps: [exec('echo step-1 && seq 1 60'), exec('cat notes.txt'), exec('ls -la && wc -l notes.txt'), exec('echo step-4 && seq 61 120')],
    final: FINAL,
  };
}

/** Gemini CLI's steps, all through its run_shell_command tool. */
export function geminiScript(): SessionScript {
  const shell = (command: string, description: string) => ({ name: 'run_shell_command', input: { command, description } });
  return {
    mainTool: 'run_shell_command',
    steps: [
      shell('echo step-1 && seq 1 60', 'count to sixty'),
      shell('cat notes.txt', 'read the notes'),
      shell('ls -la && wc -l notes.txt', 'list the files'),
      shell('echo step-4 && seq 61 120', 'count on'),
    ],
    final: FINAL,
  };
}

export interface SessionRun extends AgentRun {
  lastMessage?: string;
}

/** `claude -p` at `origin` (ANTHROPIC_BASE_URL) with `key`, asking for `model`. */
export async function runClaudeSession(binary: string, dirs: Workspace, origin: string, key: string, model: string, extras: ClaudeExtras): Promise<SessionRun> {
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(dirs.home),
    CLAUDE_CONFIG_DIR: path.join(dirs.home, '.claude'),
    ANTHROPIC_BASE_URL: origin,
    ANTHROPIC_API_KEY: key,
    ...CLAUDE_QUIET_ENV,
  };
  const args = ['-p', PROMPT, '--model', model, '--allowedTools', 'Bash', 'Read', '--max-turns', '10', '--output-format', 'text'];
  if (extras.hook) args.push('--settings', JSON.stringify(hookSettings()));
  return runAgent('claude', binary, args, dirs.cwd, env);
}

/** A PostToolUse hook on every tool that hands the model extra context (Claude Code's hooks reference, hookSpecificOutput.additionalContext). */
function hookSettings() {
  const output = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: HOOK_CONTEXT } });
  return { hooks: { PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `printf '%s\\n' '${output}'` }] }] } };
}

/**
 * `codex exec` with a custom Responses provider at `baseUrl` (the router's /v1, or the fake's),
 * asking for `model`, which the model catalog file describes as the router's SKUs.
 */
export async function runCodexSession(binary: string, dirs: Workspace, baseUrl: string, key: string, model: string): Promise<SessionRun> {
  const codexHome = path.join(dirs.home, '.codex');
  fs.mkdirSync(codexHome, { recursive: true });
  const catalogFile = path.join(codexHome, 'svc-models.json');
  fs.writeFileSync(catalogFile, codexModelCatalogJson());
  const config = [
    'model_provider = "svc"',
    `model = ${JSON.stringify(model)}`,
    `model_catalog_json = ${JSON.stringify(catalogFile)}`,
    '',
    '[model_providers.svc]',
    'name = "svc-router"',
    `base_url = ${JSON.stringify(baseUrl)}`,
    'wire_api = "responses"',
    'env_key = "SVC_TEST_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ];
  fs.writeFileSync(path.join(codexHome, 'config.toml'), config.join('\n'));
  const env: NodeJS.ProcessEnv = { ...baseEnv(dirs.home), CODEX_HOME: codexHome, SVC_TEST_KEY: key };
  const lastMessageFile = path.join(dirs.root, 'last-message.txt');
  const run = await runAgent('codex', binary, codexExecArgs(lastMessageFile, PROMPT), dirs.cwd, env);
  return { ...run, lastMessage: readIfExists(lastMessageFile) };
}

/**
 * Gemini CLI's own settings for an API key (~/.gemini/settings.json: the auth type it would ask
 * for interactively, the model), with update checks and usage statistics off so nothing leaves
 * loopback.
 */
export function geminiCliSettings(model: string): object {
  return {
    security: { auth: { selectedType: 'gemini-api-key' } },
    model: { name: model },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  };
}

/** `gemini -p --yolo` at `origin` (GOOGLE_GEMINI_BASE_URL) with `key` (GEMINI_API_KEY), asking for `model`. */
export async function runGeminiSession(binary: string, dirs: Workspace, origin: string, key: string, model: string): Promise<SessionRun> {
  const settingsDir = path.join(dirs.home, '.gemini');
  fs.mkdirSync(settingsDir, { recursive: true });
  fs.writeFileSync(path.join(settingsDir, 'settings.json'), JSON.stringify(geminiCliSettings(model), null, 2));
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(dirs.home),
    GOOGLE_GEMINI_BASE_URL: origin,
    GEMINI_API_KEY: key,
    // A headless run in a folder the user never trusted interactively is refused without this.
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
  };
  return runAgent('gemini', binary, ['-p', PROMPT, '--yolo', '--output-format', 'text'], dirs.cwd, env);
}

/** A small valid RGB PNG (a gradient), for the Read tool to return as an image. */
export function png(width: number, height: number): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) row.set([(x * 255) / width, (y * 255) / height, 128], 1 + x * 3);
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
