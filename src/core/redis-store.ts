/**
 * The Redis usage stores a router can be pointed at, one string each:
 *
 * - `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS): one server, as ioredis reads it;
 * - `redis-sentinel://[[user]:password@]host[:port][,host[:port]…]/MASTER[/db][?db=N]`: the
 *   sentinels of a primary with replicas, and the name they know it by (`sentinel monitor NAME …`).
 *   `redis+sentinel://` is the same: it is the spelling Python's redis-sentinel-url, redisvl and
 *   Prefect read, and Lettuce's `redis-sentinel://` is the other common one. A sentinel without a
 *   port is on 26379 (Sentinel's own default). The password is the data nodes' (`requirepass`,
 *   `masterauth`); the sentinels are asked without one.
 *
 * Nothing here prints a password: `displayRedisStore` hides it, and errors quote the hidden form.
 */

const SINGLE = /^rediss?:\/\//i;
const SENTINEL = /^redis[-+]sentinel:\/\//i;
/** Where a sentinel listens unless told otherwise (the port in Redis's own sentinel.conf). */
export const SENTINEL_PORT = 26379;

export interface SentinelAddress {
  host: string;
  port: number;
}

/** What ioredis needs to find the primary through its sentinels. */
export interface SentinelStore {
  kind: 'sentinel';
  sentinels: SentinelAddress[];
  /** The primary's name, as the sentinels monitor it. */
  name: string;
  db: number;
  username?: string;
  password?: string;
}

export type RedisStore = { kind: 'single'; url: string } | SentinelStore;

/** Whether a usage store names Redis at all (any of the schemes above), valid or not. */
export const isRedisStoreUrl = (store: string): boolean => SINGLE.test(store) || SENTINEL.test(store);

/** The store a Redis URL names; throws an Error whose message shows the URL without its password. */
export function parseRedisStore(store: string): RedisStore {
  if (SINGLE.test(store)) {
    if (!/^rediss?:\/\/\S+$/i.test(store)) throw new Error(`${displayRedisStore(store)}: expected redis://HOST:PORT (no spaces)`);
    return { kind: 'single', url: store };
  }
  if (!SENTINEL.test(store)) throw new Error(`${displayRedisStore(store)}: expected redis://, rediss:// or redis-sentinel://`);
  return parseSentinel(store);
}

function parseSentinel(store: string): SentinelStore {
  const shown = displayRedisStore(store);
  const fail = (why: string): never => {
    throw new Error(`${shown}: ${why} (expected redis-sentinel://[:PASSWORD@]HOST[:PORT][,HOST[:PORT]…]/MASTER[?db=N])`);
  };
  const rest = store.slice(store.indexOf('://') + 3);
  // The userinfo ends at the last '@' (a password may hold '/', '?' or '@' unescaped); the hosts end at the first '/' or '?' after it.
  const at = rest.lastIndexOf('@');
  const userinfo = at < 0 ? undefined : rest.slice(0, at);
  const [located = '', query = ''] = splitOnce(rest.slice(at + 1), '?');
  const slash = located.indexOf('/');
  const hosts = slash < 0 ? located : located.slice(0, slash);
  const path = slash < 0 ? '' : located.slice(slash + 1);

  const sentinels = hosts.split(',').map((entry) => sentinelAddress(entry) ?? fail(`'${entry}' is not HOST or HOST:PORT`));
  if (!hosts) fail('no sentinel address');

  const [rawName = '', rawDb, extra] = path.split('/');
  if (extra !== undefined) fail('the path is /MASTER or /MASTER/DB');
  const name = decode(rawName) ?? fail('the master name is not valid percent-encoding');
  if (!name) fail('no master name (the name the sentinels monitor the primary by)');

  let dbText = rawDb;
  for (const pair of query ? query.split('&') : []) {
    const [key, value = ''] = splitOnce(pair, '=');
    if (key === 'db') dbText = value;
    else fail(`unknown option '${key}' (the only option is db)`);
  }
  const db = dbText === undefined || dbText === '' ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0 || !/^\d+$/.test(dbText ?? '0')) fail(`db must be a whole number, got '${dbText}'`);

  const result: SentinelStore = { kind: 'sentinel', sentinels, name, db };
  if (userinfo !== undefined) {
    const [user, password] = userinfo.includes(':') ? splitOnce(userinfo, ':') : ['', userinfo];
    const username = decode(user) ?? fail('the user name is not valid percent-encoding');
    const secret = decode(password ?? '') ?? fail('the password is not valid percent-encoding');
    if (username) result.username = username;
    if (secret) result.password = secret;
  }
  return result;
}

/** `host`, `host:port` or `[v6]:port`; undefined when it is none of them. */
function sentinelAddress(entry: string): SentinelAddress | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]/@,]+))(?::(\d{1,5}))?$/.exec(entry);
  if (!match) return undefined;
  const port = match[3] === undefined ? SENTINEL_PORT : Number(match[3]);
  if (port < 1 || port > 65_535) return undefined;
  return { host: (match[1] ?? match[2])!, port };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const index = text.indexOf(separator);
  return index < 0 ? [text, undefined] : [text.slice(0, index), text.slice(index + 1)];
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * A Redis URL as it may be shown (logs, status, doctor, the dashboard, errors): a password, and
 * anything after `scheme://` that could be one, becomes `***`; the user name stays.
 */
export function displayRedisStore(store: string): string {
  // A mistyped scheme (redis:/, redis-sentinel:) still hides what may be a password.
  const scheme = /^[a-z][a-z0-9+.-]*:\/{0,2}/i.exec(store) ?? [''];
  const rest = store.slice(scheme[0].length);
  // The userinfo ends at the last '@': a password may hold '@' or '/' unescaped, and hiding too much beats showing one.
  const at = rest.lastIndexOf('@');
  if (at < 0) return store;
  const userinfo = rest.slice(0, at);
  const colon = userinfo.indexOf(':');
  const hidden = colon < 0 ? '***' : `${userinfo.slice(0, colon)}:***`;
  return `${scheme[0]}${hidden}${rest.slice(at)}`;
}

/** Every URL in a line of text (a command line), shown without its password: a mistyped scheme too. */
export const redactRedisStores = (text: string): string => text.replace(/[a-z][a-z0-9+.-]*:\/\/\S*/gi, (url) => displayRedisStore(url));
