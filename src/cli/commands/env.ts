import type { Settings } from '../../config/settings.js';
import { keyHint } from '../../core/router-keys.js';
import { whitespaceIn } from '../../identity/key-whitespace.js';
import { notInitialisedError, usageError } from '../cli-error.js';
import { claudeModelPlan } from '../claude-model-plan.js';
import { clientEnv, exportLine } from '../client-settings.js';
import { printLine } from '../output.js';
import { parseHttpUrl } from '../parse-options.js';
import { routerAddress } from '../router-address.js';
import { openConfig } from '../config-in-force.js';

/**
 * The export lines that point every client at this router: the same variables `connect` writes.
 * `maskKey` (for a log file) comments out the lines that hold the key and shows only its hint.
 */
export function envLines(origin: string, key: string, settings: Settings, options: { maskKey?: boolean } = {}): string[] {
  return clientEnv(origin, key, claudeModelPlan(settings)).map(([name, value]) =>
    options.maskKey && value === key ? `# export ${name}=${keyHint(key)}` : exportLine(name, value),
  );
}

export async function runEnv(options: { baseUrl?: string; key?: string }): Promise<void> {
  const config = await openConfig();
  const settings = config.read();
  const key = options.key ?? settings.localKey;
  if (!key) throw notInitialisedError('no local key yet: run svc-router init (or svc-router serve, which creates one)');
  if (whitespaceIn(key)) throw usageError(`${options.key !== undefined ? 'the key given with --key' : `the stored key (localKey in ${config.path})`} holds whitespace (at an end, inside, or written out as \\n or %20); the router would refuse it (401). Fix the key; no trailing whitespace.`);
  const { origin } = routerAddress(settings, { flag: options.baseUrl !== undefined ? parseHttpUrl(options.baseUrl, '--base-url') : undefined });
  for (const line of envLines(origin, key, settings)) printLine(line);
}
