import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SCHEMA_FILE } from '../../config/declarative/json-schema.js';
import { applyDeclarative, DEFAULT_SCHEMA_REF, exportDeclarative } from '../../config/declarative/overlay.js';
import { SETTINGS_PLACEMENT, type Placement } from '../../config/declarative/placement.js';
import { formatPath, type Problem } from '../../config/declarative/parse.js';
import { formatProblems } from '../../config/declarative/report.js';
import type { DeclarativeConfig } from '../../config/declarative/schema.js';
import { validateText, type Validation } from '../../config/declarative/validate.js';
import type { Settings } from '../../config/settings.js';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { CliError, EXIT_USAGE, failedError, usageError } from '../cli-error.js';
import { chalk, printJson, printLine, warn } from '../output.js';
import { openConfig } from '../config-in-force.js';
import { ConfigStore } from '../../config/store.js';
import { findServer } from '../server-state.js';

export interface ExportOptions {
  output?: string;
  force?: boolean;
  withKeys?: boolean;
  schemaRef?: string;
}

/** Writes the settings in force as a declarative file: stdout is the file, notes go to stderr. */
export async function runConfigExport(options: ExportOptions): Promise<void> {
  const file = options.output === undefined ? undefined : path.resolve(options.output);
  if (file !== undefined && fs.existsSync(file) && !options.force) throw failedError(`${file} exists; add --force to replace it`);
  const { config, notes } = exportDeclarative((await openConfig()).read(), {
    ...(options.withKeys ? { withKeys: true } : {}),
    schemaRef: options.schemaRef ?? schemaRefFor(file === undefined ? process.cwd() : path.dirname(file)),
  });
  const text = `${JSON.stringify(config, null, 2)}\n`;
  for (const note of notes) warn(note);
  if (file === undefined) return void process.stdout.write(text);
  // A file replaced with --force keeps its mode; readers (a router following it) never see half of it.
  writeFileAtomic(file, text);
  printLine(`${chalk.green('✓')} Wrote ${file}`);
}

/** This svc-router's own schema: the package's, or the checkout's. */
const OWN_SCHEMA = fileURLToPath(new URL(`../../../${SCHEMA_FILE}`, import.meta.url));

/**
 * The `$schema` of a file written into `dir`, one that exists: the schema of the svc-router the
 * project there installs (./node_modules/svc-router/…), else this svc-router's own, relative to
 * the file (./schema/… at a checkout's root).
 */
export function schemaRefFor(dir: string): string {
  if (fs.existsSync(path.join(dir, DEFAULT_SCHEMA_REF))) return DEFAULT_SCHEMA_REF;
  const relative = path.relative(dir, OWN_SCHEMA);
  if (path.isAbsolute(relative)) return pathToFileURL(OWN_SCHEMA).href; // another drive
  const posix = relative.split(path.sep).join('/');
  return posix.startsWith('../') ? posix : `./${posix}`;
}

export interface ValidateOptions {
  json?: boolean;
}

/** Checks a file (default: SVC_ROUTER_CONFIG, else the running serve's); exit code 2 when it is not valid. */
export function runConfigValidate(file: string | undefined, options: ValidateOptions): void {
  const { resolved, validation } = validateFile(file);
  if (options.json) {
    printJson({ file: resolved, valid: validation.config !== undefined, problems: validation.problems.map(plain), warnings: validation.warnings.map(plain) });
    if (!validation.config) process.exitCode = EXIT_USAGE;
    return;
  }
  if (!validation.config) throw invalid(resolved, validation.problems);
  printLine(`${chalk.green('✓')} ${resolved} is valid: ${summary(validation.config)}`);
  for (const warning of validation.warnings) warn(formatProblems([warning], ''));
}

export interface ImportOptions {
  dryRun?: boolean;
}

/** Writes a file's settings into config.json, saying every change; nothing is written when it is not valid. */
export async function runConfigImport(file: string, options: ImportOptions): Promise<void> {
  const store = await openConfig();
  const stored = store.readStored();
  const { resolved, validation } = validateFile(file, Object.keys(stored.backends));
  if (!validation.config) throw invalid(resolved, validation.problems);
  const imported = validation.config;
  // Secrets are not copied from the environment into config.json: serve reads them where it runs.
  const next = applyDeclarative(stored, imported, {});
  const changes = describeChanges(stored, next);
  if (imported.sealingSecretEnv) warn(`"sealingSecretEnv" is read by serve --config (or SVC_ROUTER_CONFIG); import does not store the secret`);
  if (!changes.length) return printLine(`${chalk.green('✓')} ${store.path} already holds what ${resolved} says; nothing changed`);
  if (!options.dryRun) {
    store.update((settings) => {
      for (const field of Object.keys(SETTINGS_PLACEMENT) as Array<keyof Settings>) (settings as unknown as Record<string, unknown>)[field] = next[field];
    });
  }
  printLine(`${chalk.green('✓')} ${options.dryRun ? 'Would import' : 'Imported'} ${resolved} into ${store.path}:`);
  for (const change of changes) printLine(`  ${change}`);
}

/** A file named, else SVC_ROUTER_CONFIG's, else the one the running serve reads. */
function validateFile(file: string | undefined, storedBackends?: string[]): { resolved: string; validation: Validation } {
  const given = file ?? (process.env.SVC_ROUTER_CONFIG || undefined) ?? runningServeFile();
  if (!given) throw usageError('name the file to check (or set SVC_ROUTER_CONFIG)');
  const resolved = path.resolve(given);
  let text: string;
  try {
    text = fs.readFileSync(resolved, 'utf8');
  } catch (error) {
    throw usageError(`cannot read ${resolved}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return { resolved, validation: validateText(text, { storedBackends: storedBackends ?? Object.keys(new ConfigStore().readStored().backends) }) };
}

function runningServeFile(): string | undefined {
  const found = findServer();
  return found.status === 'running' ? found.state.config : undefined;
}

const invalid = (file: string, problems: readonly Problem[]): CliError =>
  new CliError(`${file} is not valid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${formatProblems(problems)}`, EXIT_USAGE);

const plain = (problem: Problem) => ({ path: formatPath(problem.path), line: problem.line, column: problem.column, message: problem.message });

function summary(config: DeclarativeConfig): string {
  const parts = [
    config.backends ? `${Object.keys(config.backends).length} backend(s)` : 'backends from config.json',
    config.routes ? `${Object.keys(config.routes).length} route(s)` : 'routes from config.json',
  ];
  if (config.keys) parts.push(`${Object.keys(config.keys).length} key record(s)`);
  return parts.join(', ');
}

/** `backends: + anthropic, ~ openai (baseUrl), − old` and `server.port: 8787 → 9000`, one line per section. */
function describeChanges(before: Settings, after: Settings): string[] {
  const lines: string[] = [];
  for (const [field, placement] of Object.entries(SETTINGS_PLACEMENT) as Array<[string, Placement]>) {
    const was = (before as unknown as Record<string, unknown>)[field];
    const now = (after as unknown as Record<string, unknown>)[field];
    if (placement === 'table') {
      const a = (was ?? {}) as Record<string, unknown>;
      const b = (now ?? {}) as Record<string, unknown>;
      const parts: string[] = [];
      for (const name of Object.keys(b)) {
        if (!Object.hasOwn(a, name)) parts.push(`+ ${name}`);
        else if (!sameJson(a[name], b[name])) parts.push(`~ ${name}${changedFields(a[name], b[name])}`);
      }
      for (const name of Object.keys(a)) if (!Object.hasOwn(b, name)) parts.push(`− ${name}`);
      if (parts.length) lines.push(`${field}: ${parts.join(', ')}`);
    } else if (placement === 'group') {
      const a = (was ?? {}) as Record<string, unknown>;
      const b = (now ?? {}) as Record<string, unknown>;
      for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
        if (!sameJson(a[name], b[name])) lines.push(`${field}.${name}: ${JSON.stringify(a[name])} → ${JSON.stringify(b[name])}`);
      }
    } else if (placement === 'file' && !sameJson(was, now)) {
      lines.push(`${field}: ${JSON.stringify(was)} → ${JSON.stringify(now)}`);
    }
  }
  return lines;
}

/** The fields of an entry that differ (a stored key that goes is named, never printed). */
function changedFields(was: unknown, now: unknown): string {
  if (typeof was !== 'object' || typeof now !== 'object' || !was || !now || Array.isArray(was)) return '';
  const a = was as Record<string, unknown>;
  const b = now as Record<string, unknown>;
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((name) => !sameJson(a[name], b[name]));
  return names.length ? ` (${names.map((name) => (name === 'apiKey' && !(name in b) ? 'stored apiKey removed' : name)).join(', ')})` : '';
}

/** Equal as JSON, whatever the order of object fields (arrays keep theirs: a fallback order matters). */
const sameJson = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, node: unknown) =>
    node && typeof node === 'object' && !Array.isArray(node)
      ? Object.fromEntries(Object.entries(node as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : node,
  );
