import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The shared AWS config and credentials files (https://docs.aws.amazon.com/sdkref/latest/guide/file-format.html):
 * INI sections, `[name]` in the credentials file and `[profile name]` (or `[default]`) in the
 * config file; the credentials file wins for a key both set.
 */

export type Profile = Record<string, string>;

/** Sections by name, with no prototype (section and key names come from a file a person edits). */
export function parseIni(text: string): Record<string, Profile> {
  const sections: Record<string, Profile> = Object.create(null);
  let current: Profile | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (section) {
      current = sections[section[1]!] ??= Object.create(null) as Profile;
      continue;
    }
    const equals = line.indexOf('=');
    // Indented lines continue a nested setting (s3 = ...): not one this reader needs.
    if (!current || equals === -1 || /^\s/.test(raw)) continue;
    current[line.slice(0, equals).trim().toLowerCase()] = line.slice(equals + 1).trim();
  }
  return sections;
}

function readIni(path: string): Record<string, Profile> {
  try {
    return parseIni(readFileSync(path, 'utf8'));
  } catch {
    return Object.create(null) as Record<string, Profile>;
  }
}

export const credentialsFilePath = (env: NodeJS.ProcessEnv): string => env.AWS_SHARED_CREDENTIALS_FILE || join(homedir(), '.aws', 'credentials');
export const configFilePath = (env: NodeJS.ProcessEnv): string => env.AWS_CONFIG_FILE || join(homedir(), '.aws', 'config');

/** One profile's settings from both files, or undefined when neither names it. */
export function readProfile(name: string, env: NodeJS.ProcessEnv): Profile | undefined {
  const credentials = readIni(credentialsFilePath(env))[name];
  const config = readIni(configFilePath(env))[name === 'default' ? 'default' : `profile ${name}`];
  if (!credentials && !config) return undefined;
  return { ...config, ...credentials };
}
