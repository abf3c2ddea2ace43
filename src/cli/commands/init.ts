import fs from 'node:fs';
import os from 'node:os';
import { newSealingSecret } from '../../config/settings.js';
import { ConfigStore } from '../../config/store.js';
import { formatCount } from '../../core/format-numbers.js';
import { generateKey } from '../../core/router-keys.js';
import { failedError } from '../cli-error.js';
import { chalk, printJson, printLine, warn } from '../output.js';
import { claudeSettingsPath, codexConfigPath } from './connect.js';
import { defaultSlug, parsePositiveInteger, parseSlug } from '../parse-options.js';
import { keyRecord } from './keys.js';
import { openConfig } from '../config-in-force.js';

export interface InitOptions {
  developer?: string;
  org?: string;
  tier?: string;
  cap?: string;
  force?: boolean;
  json?: boolean;
}

/**
 * Issues the local developer's own key and stores it (plus the sealing secret) so the CLI and a
 * zero-config `serve` can use it. Returns the new key.
 */
export function initialise(config: ConfigStore, options: InitOptions): { key: string; developer: string } {
  const developer = parseSlug(options.developer ?? defaultSlug(os.userInfo().username));
  const cap = options.cap === undefined ? undefined : parsePositiveInteger(options.cap, '--cap');
  const current = config.read();
  if (current.localKey && !options.force) {
    throw failedError(`already initialised (config: ${config.path}); use --force to issue a new local key`);
  }
  const key = generateKey(developer);
  config.update((settings) => {
    settings.localKey = key;
    settings.secret ??= newSealingSecret();
    settings.keys[developer] = keyRecord(key, developer, {
      organisation: options.org ?? settings.defaults.organisation,
      tier: options.tier ?? settings.defaults.tier,
      capTokens: cap ?? settings.defaults.capTokens,
    });
  });
  return { key, developer };
}

export async function runInit(options: InitOptions): Promise<void> {
  const config = await openConfig();
  const previous = config.read().localKey;
  const { key, developer } = initialise(config, options);
  if (options.force && previous !== undefined) warnAboutOldKey(previous);
  const record = config.read().keys[developer]!;
  if (options.json) {
    printJson({ developer, organisation: record.organisation, tier: record.tier, cap_tokens: record.capTokens, key, config_path: config.path });
    return;
  }
  printLine(`${chalk.green('✓')} Issued the local key for ${chalk.bold(developer)} (${record.organisation}, ${record.tier}, cap ${formatCount(record.capTokens)} tokens / 30 days)`);
  printLine(`  key: ${key}`);
  printLine(`  stored in ${config.path} (mode 0600); run ${chalk.cyan('svc-router serve')} and ${chalk.cyan('svc-router env')} next`);
}

/**
 * A forced init replaces the local key: the old one now gets 401 everywhere it was written.
 * Names the client files and variables that still hold it, and how to update them.
 */
function warnAboutOldKey(previous: string): void {
  const files = [claudeSettingsPath(), codexConfigPath()].filter((file) => {
    try {
      return fs.readFileSync(file, 'utf8').includes(previous);
    } catch {
      return false;
    }
  });
  const variables = Object.keys(process.env).filter((name) => process.env[name] === previous).sort();
  const where = [...files, ...variables.map((name) => `$${name} in this shell`)];
  warn(
    `the previous local key stops working now: clients configured with it get 401${where.length ? ` (still in ${where.join(', ')})` : ''}. ` +
      'Update them: svc-router connect claude --write, eval "$(svc-router env)", and SVC_ROUTER_KEY where codex runs.',
  );
}
