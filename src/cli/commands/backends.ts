import { BACKEND_TYPES, isBackendType } from '../../backends/registry.js';
import type { BackendSettings, BackendTimeouts } from '../../config/settings.js';
import { ConfigStore } from '../../config/store.js';
import { OFFLINE_BACKEND } from '../../routing/skus.js';
import { parseTarget } from '../../routing/target.js';
import { usageError } from '../cli-error.js';
import { chalk, printJson, printLine, printTable } from '../output.js';
import { parseHttpUrl, parsePositiveInteger } from '../parse-options.js';

const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface AddBackendOptions {
  type: string;
  baseUrl: string;
  apiKey?: string;
  apiKeyEnv?: string;
  header?: string[];
  connectTimeout?: string;
  firstByteTimeout?: string;
  idleTimeout?: string;
  totalTimeout?: string;
}

export function runBackendsAdd(name: string, options: AddBackendOptions): void {
  if (!NAME_PATTERN.test(name)) throw usageError(`backend name '${name}' is not valid: use letters, digits, '-' and '_' (up to 40)`);
  if (name === OFFLINE_BACKEND) throw usageError(`'${OFFLINE_BACKEND}' is the built-in backend; choose another name`);
  if (!isBackendType(options.type)) {
    throw usageError(`unknown backend type '${options.type}'; expected one of ${BACKEND_TYPES.join(', ')}`);
  }
  if (options.apiKey !== undefined && options.apiKeyEnv !== undefined) throw usageError('give --api-key or --api-key-env, not both');
  if (options.apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.apiKeyEnv)) {
    throw usageError(`--api-key-env must name an environment variable, got '${options.apiKeyEnv}'`);
  }
  const backend: BackendSettings = { type: options.type, baseUrl: parseHttpUrl(options.baseUrl, '--base-url') };
  if (options.apiKey !== undefined) backend.apiKey = options.apiKey;
  if (options.apiKeyEnv !== undefined) backend.apiKeyEnv = options.apiKeyEnv;
  if (options.header?.length) backend.headers = Object.fromEntries(options.header.map(parseHeader));
  const timeouts: BackendTimeouts = {};
  if (options.connectTimeout !== undefined) timeouts.connectMs = parsePositiveInteger(options.connectTimeout, '--connect-timeout');
  if (options.firstByteTimeout !== undefined) timeouts.firstByteMs = parsePositiveInteger(options.firstByteTimeout, '--first-byte-timeout');
  if (options.idleTimeout !== undefined) timeouts.idleMs = parsePositiveInteger(options.idleTimeout, '--idle-timeout');
  if (options.totalTimeout !== undefined) timeouts.totalMs = parsePositiveInteger(options.totalTimeout, '--total-timeout');
  if (Object.keys(timeouts).length) backend.timeouts = timeouts;
  const config = new ConfigStore();
  const replaced = name in config.read().backends;
  config.update((settings) => {
    settings.backends[name] = backend;
  });
  printLine(`${chalk.green('✓')} ${replaced ? 'Updated' : 'Added'} backend ${chalk.bold(name)} (${backend.type}, ${backend.baseUrl})`);
}

function parseHeader(text: string): [string, string] {
  const equals = text.indexOf('=');
  const name = equals === -1 ? '' : text.slice(0, equals);
  if (!HEADER_NAME.test(name)) throw usageError(`--header must be NAME=VALUE, got '${text}'`);
  const value = text.slice(equals + 1);
  if (/[\r\n\0]/.test(value)) throw usageError(`--header ${name}: the value may not contain line breaks`);
  return [name.toLowerCase(), value];
}

/** How a backend's key is provided, never the key itself. */
const keySource = (backend: BackendSettings): string =>
  backend.apiKey !== undefined ? 'stored' : backend.apiKeyEnv !== undefined ? `env:${backend.apiKeyEnv}` : 'none';

export function runBackendsList(options: { json?: boolean }): void {
  const backends = new ConfigStore().read().backends;
  const rows = Object.entries(backends).map(([name, backend]) => ({
    name,
    type: backend.type,
    base_url: backend.baseUrl,
    api_key: keySource(backend),
    // Header values can hold credentials; list only their names.
    headers: Object.keys(backend.headers ?? {}),
  }));
  if (options.json) return printJson(rows);
  if (rows.length === 0) return printLine('No backends configured; every SKU is served by the built-in offline backend.');
  printTable(rows.map((row) => [row.name, row.type, row.base_url, row.api_key, row.headers.join(',')]), ['NAME', 'TYPE', 'BASE URL', 'KEY', 'HEADERS']);
}

export function runBackendsRemove(name: string): void {
  const config = new ConfigStore();
  const settings = config.read();
  if (!(name in settings.backends)) throw usageError(`no backend named '${name}'`);
  const users = Object.entries(settings.routes).filter(([, targets]) => targets.some((target) => parseTarget(target).backend === name));
  if (users.length) {
    throw usageError(`backend '${name}' is used by route ${users.map(([model]) => model).join(', ')}; change or unset those routes first`);
  }
  config.update((draft) => {
    delete draft.backends[name];
  });
  printLine(`${chalk.green('✓')} Removed backend ${chalk.bold(name)}`);
}
