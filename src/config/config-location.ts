import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Where config.json lives, the place `conf` has always chosen for it (projectName `svc-router`,
 * no suffix, configName `config`): `<home>/config.json` when a home is given (the `dir` argument,
 * else SVC_ROUTER_HOME), else the platform's config directory as conf's env-paths names it
 * (https://github.com/sindresorhus/env-paths: XDG_CONFIG_HOME or ~/.config on Linux,
 * ~/Library/Preferences on macOS, %APPDATA%\<name>\Config on Windows). Worked out here because
 * loading conf costs a quick command its JSON-schema and semver libraries, which the store never
 * uses: it reads and writes the file itself. serve asks conf (conf-location.ts);
 * test/unit/config-location.test.ts holds this to conf's own answer.
 */
export function configFilePath(dir?: string): string {
  const home = dir ?? process.env.SVC_ROUTER_HOME;
  return path.resolve(home ? home : platformConfigDirectory(PROJECT_NAME), CONFIG_FILE);
}

const PROJECT_NAME = 'svc-router';
const CONFIG_FILE = 'config.json';

function platformConfigDirectory(name: string): string {
  const { env } = process;
  const homedir = os.homedir();
  if (process.platform === 'darwin') return path.join(homedir, 'Library', 'Preferences', name);
  if (process.platform === 'win32') return path.join(env.APPDATA || path.join(homedir, 'AppData', 'Roaming'), name, 'Config');
  return path.join(env.XDG_CONFIG_HOME || path.join(homedir, '.config'), name);
}

/**
 * What building the store through conf did to the disk, kept: the file is read once (any failure
 * but its absence is thrown, as conf threw it), and an absent file gets its directory created, so
 * that commands which only need the directory (serve's state file, the detached log) find it.
 */
export function prepareConfigDirectory(file: string): void {
  try {
    fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    fs.mkdirSync(path.dirname(file), { recursive: true });
  }
}
