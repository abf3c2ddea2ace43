import fs from 'node:fs';
import type { Settings } from '../../config/settings.js';
import { claudeModelPlan } from '../claude-model-plan.js';
import { claudeSettingsEnv, KEY_ENV, mergeCodexConfig, MergeError } from '../client-settings.js';
import { claudeSettingsPath, codexConfigPath, geminiEnvPath, geminiSettingsPath } from '../commands/connect.js';
import { GEMINI_AUTH_TYPE, geminiEnv, readDotEnv } from '../gemini-settings.js';
import { SKUS } from '../../core/model-names.js';
import { parse, type ParseError } from 'jsonc-parser';
import { keyHint } from './checks.js';
import { fail, pass, type CheckResult } from './result.js';
import type { DoctorClient } from './doctor-clients.js';
import { describeAt } from '../../files/broken-file.js';
import { readJsonText } from '../../files/json-text.js';

type Env = Record<string, string | undefined>;

/**
 * What `doctor --client NAME` adds: the settings `connect NAME --write` manages (their file, for
 * codex and claude) and the environment variables that client reads, each compared with the
 * router's address and the key being checked.
 */
export function checkClient(client: DoctorClient, settings: Settings, origin: string, key: string | undefined, env: Env = process.env): CheckResult[] {
  switch (client) {
    case 'codex':
      return [checkCodexConfig(origin), expectVariable(env, KEY_ENV, key, 'Codex reads the key from it')];
    case 'claude':
      return checkClaude(settings, origin, key, env);
    case 'openai':
      return [expectVariable(env, 'OPENAI_BASE_URL', `${origin}/v1`, 'OpenAI SDKs read it'), expectVariable(env, 'OPENAI_API_KEY', key, 'OpenAI SDKs send it')];
    case 'anthropic':
      return [expectVariable(env, 'ANTHROPIC_BASE_URL', origin, 'Anthropic SDKs read it (without /v1)'), anthropicKeyVariable(env, key)];
    case 'gemini':
      return checkGemini(settings, origin, key, env);
  }
}

function checkCodexConfig(origin: string): CheckResult {
  const file = codexConfigPath();
  const id = 'client:codex';
  const existing = readText(file);
  if (existing === undefined) return fail(id, `${file} does not exist`, 'Run svc-router connect codex --write.');
  let merged: string;
  try {
    merged = mergeCodexConfig(existing, origin);
  } catch (error) {
    if (error instanceof MergeError) return fail(id, `${file}: ${error.message}`, 'Fix the file by hand, then run svc-router connect codex --write.');
    throw error;
  }
  if (merged === existing) return pass(id, `${file} points Codex at ${origin}/v1`);
  return fail(id, `${file} does not point Codex at ${origin}/v1 with the svc provider`, 'Run svc-router connect codex --write (it prints what it changes).');
}

function checkClaude(settings: Settings, origin: string, key: string | undefined, env: Env): CheckResult[] {
  const file = claudeSettingsPath();
  const id = 'client:claude';
  // The same plan connect writes: tiers on routed SKUs, and the window.
  const expected = claudeSettingsEnv(origin, key ?? '', claudeModelPlan(settings));
  const text = readText(file);
  let settingsResult: CheckResult;
  let stored: Record<string, unknown> = {};
  if (text === undefined) settingsResult = fail(id, `${file} does not exist`, 'Run svc-router connect claude --write.');
  else {
    const reading = readJsonText(text);
    if (!reading.ok) {
      // Where, not what: the file may hold a key, and JSON.parse's message can quote it.
      settingsResult = fail(id, `${describeAt(file, reading.problem)} (not valid JSON)`, 'Fix the file by hand, then run svc-router connect claude --write.');
    } else {
      const parsed = reading.value as { env?: unknown } | null;
      if (parsed && typeof parsed.env === 'object' && parsed.env !== null) stored = parsed.env as Record<string, unknown>;
      const wrong = Object.keys(expected).filter((name) => !Object.hasOwn(stored, name) || stored[name] !== expected[name]);
      settingsResult =
        wrong.length === 0
          ? pass(id, `${file} points Claude Code at ${origin}`)
          : fail(id, `${file}: ${wrong.map((name) => describeDifference(name, stored[name], expected[name]!, key)).join('; ')}`, 'Run svc-router connect claude --write (it prints what it changes).');
    }
  }
  // The shell's variables that would fight the settings: a different value for one the settings set,
  // or ANTHROPIC_API_KEY when the settings send the key another way (x-api-key is read first).
  const conflicts = [...Object.keys(expected), 'ANTHROPIC_API_KEY'].filter(
    (name, index, all) => all.indexOf(name) === index && env[name] !== undefined && env[name] !== (Object.hasOwn(expected, name) ? expected[name] : undefined),
  );
  const envResult =
    conflicts.length === 0
      ? pass('env:claude', 'no shell variable overrides the settings')
      : fail('env:claude', `the shell sets ${conflicts.join(', ')} differently from the settings`, `unset ${conflicts.join(' ')} in the shell that starts claude (the settings file carries them).`);
  return [settingsResult, envResult];
}

/**
 * Gemini CLI: settings.json's auth type and model, the .env file's address and key, and shell
 * variables that would win over the .env file (Gemini CLI keeps what its environment already has).
 */
function checkGemini(settings: Settings, origin: string, key: string | undefined, env: Env): CheckResult[] {
  const settingsFile = geminiSettingsPath();
  const envFile = geminiEnvPath();
  const rewrite = 'Run svc-router connect gemini --write (it prints what it changes).';
  const served = new Set<string>([...SKUS, ...Object.keys(settings.routes)]);

  let settingsResult: CheckResult;
  const text = readText(settingsFile);
  if (text === undefined) settingsResult = fail('client:gemini', `${settingsFile} does not exist`, 'Run svc-router connect gemini --write.');
  else {
    const errors: ParseError[] = [];
    const parsed = parse(text, errors, { disallowComments: false, allowTrailingComma: false }) as { security?: { auth?: { selectedType?: unknown } }; model?: { name?: unknown } } | null;
    const selected = parsed?.security?.auth?.selectedType;
    const model = typeof parsed?.model === 'object' ? parsed?.model?.name : undefined;
    const wrong = [
      ...(errors.length ? ['it is not valid JSON'] : []),
      ...(!errors.length && selected !== GEMINI_AUTH_TYPE ? [`security.auth.selectedType is ${JSON.stringify(selected ?? null)}, not "${GEMINI_AUTH_TYPE}"`] : []),
      ...(!errors.length && (typeof model !== 'string' || !served.has(model)) ? [`model.name is ${JSON.stringify(model ?? null)}, not an svc SKU this router serves`] : []),
    ];
    settingsResult = wrong.length ? fail('client:gemini', `${settingsFile}: ${wrong.join('; ')}`, rewrite) : pass('client:gemini', `${settingsFile} selects the API key auth and ${String(model)}`);
  }

  const expected = Object.fromEntries(geminiEnv(origin, key ?? ''));
  const envText = readText(envFile);
  let envFileResult: CheckResult;
  if (envText === undefined) envFileResult = fail('client:gemini-env', `${envFile} does not exist`, 'Run svc-router connect gemini --write.');
  else {
    const stored = readDotEnv(envText);
    const wrong = Object.keys(expected).filter((name) => stored[name] !== expected[name]);
    envFileResult = wrong.length
      ? fail('client:gemini-env', `${envFile}: ${wrong.map((name) => describeVariable(name, stored[name], expected[name]!, key)).join('; ')}`, rewrite)
      : pass('client:gemini-env', `${envFile} points Gemini CLI at ${origin}`);
  }

  const conflicts = Object.keys(expected).filter((name) => env[name] !== undefined && env[name] !== expected[name]);
  const shellResult =
    conflicts.length === 0
      ? pass('env:gemini', `no shell variable overrides ${envFile}`)
      : fail('env:gemini', `the shell sets ${conflicts.join(', ')} differently from ${envFile}, and Gemini CLI keeps the shell's`, `unset ${conflicts.join(' ')} in the shell that starts gemini (the .env file carries them).`);
  return [settingsResult, envFileResult, shellResult];
}

function describeVariable(name: string, actual: string | undefined, expected: string, key: string | undefined): string {
  if (actual === undefined) return `${name} is not set`;
  if (key !== undefined && expected === key) return `${name} holds another key (${keyHint(actual)}), not ${keyHint(key)}`;
  return `${name} is ${actual}, not ${expected}`;
}

function describeDifference(name: string, actual: unknown, expected: string, key: string | undefined): string {
  if (actual === undefined) return `env.${name} is not set`;
  if (key !== undefined && expected === key) return `env.${name} holds another key (${typeof actual === 'string' ? keyHint(actual) : typeof actual}), not ${keyHint(key)}`;
  return `env.${name} is ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`;
}

/** One variable the client reads must hold `expected` (a key is compared, never printed). */
function expectVariable(env: Env, name: string, expected: string | undefined, why: string): CheckResult {
  const id = `env:${name}`;
  const actual = env[name];
  const isKey = expected === undefined || !/^https?:/.test(expected);
  if (actual === undefined || actual === '') return fail(id, `${name} is not set (${why})`, `export ${name}=${isKey ? '…' : expected} (svc-router env prints the lines).`);
  if (expected === undefined) return pass(id, `${name} is set`);
  if (actual.replace(/\/+$/, '') === expected) return pass(id, isKey ? `${name} holds the key (${keyHint(expected)})` : `${name}=${actual}`);
  if (isKey) return fail(id, `${name} holds another key (${keyHint(actual)}), not ${keyHint(expected)}`, `export ${name}=… with the key being checked (svc-router env prints it).`);
  return fail(id, `${name} is ${actual}, not ${expected}`, `export ${name}=${expected}`);
}

/** Anthropic's SDKs send ANTHROPIC_API_KEY as x-api-key, or ANTHROPIC_AUTH_TOKEN as a bearer token. */
function anthropicKeyVariable(env: Env, key: string | undefined): CheckResult {
  const name = env.ANTHROPIC_API_KEY !== undefined ? 'ANTHROPIC_API_KEY' : env.ANTHROPIC_AUTH_TOKEN !== undefined ? 'ANTHROPIC_AUTH_TOKEN' : undefined;
  if (name === undefined) return fail('env:ANTHROPIC_API_KEY', 'neither ANTHROPIC_API_KEY nor ANTHROPIC_AUTH_TOKEN is set', 'export ANTHROPIC_API_KEY=… (svc-router env prints the lines).');
  return expectVariable(env, name, key, 'Anthropic SDKs send it');
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
