import type { KeyRecord, RateLimitSettings } from '../../config/settings.js';
import type { ConfigStore } from '../../config/store.js';
import { generateKey, hashKey, keyHint } from '../../core/router-keys.js';
import { failedError, usageError } from '../cli-error.js';
import { didYouMean } from '../did-you-mean.js';
import { openLedger } from '../../usage/open-ledger.js';
import { sliceUsage, type UsageSlice } from '../../usage/slice.js';
import { chalk, printJson, printLine, printTable, warn } from '../output.js';
import { formatCount, formatUsd } from '../../core/format-numbers.js';
import { parsePositiveInteger, parseSlug } from '../parse-options.js';
import { openConfig, requireStored } from '../config-in-force.js';

export function keyRecord(key: string, developer: string, identity: Pick<KeyRecord, 'organisation' | 'tier' | 'capTokens'>): KeyRecord {
  return { developer, ...identity, hash: hashKey(key), hint: keyHint(key), createdAt: new Date().toISOString() };
}

export interface IssueOptions {
  developer: string;
  org?: string;
  tier?: string;
  cap?: string;
  force?: boolean;
  json?: boolean;
}

/** Issues a key for a developer; only its hash is stored, so it is printed exactly once. */
export async function runKeysIssue(options: IssueOptions): Promise<void> {
  const developer = parseSlug(options.developer);
  const cap = options.cap === undefined ? undefined : parsePositiveInteger(options.cap, '--cap');
  const config = await openConfig();
  if (Object.hasOwn(config.read().keys, developer) && !options.force) {
    throw failedError(`developer '${developer}' already has a key; revoke it first or pass --force to replace it`);
  }
  const key = generateKey(developer);
  const settings = config.update((draft) => {
    draft.keys[developer] = keyRecord(key, developer, {
      organisation: options.org ?? draft.defaults.organisation,
      tier: options.tier ?? draft.defaults.tier,
      capTokens: cap ?? draft.defaults.capTokens,
    });
  });
  const record = settings.keys[developer]!;
  if (options.json) {
    printJson({ developer, organisation: record.organisation, tier: record.tier, cap_tokens: record.capTokens, key });
    return;
  }
  printLine(`${chalk.green('✓')} Issued a key for ${chalk.bold(developer)} (${record.organisation}, ${record.tier}, cap ${formatCount(record.capTokens)} tokens / 30 days)`);
  printLine(`  key: ${key}`);
  printLine(chalk.dim('  Shown once: only its hash is stored.'));
}

export async function runKeysList(options: { json?: boolean }): Promise<void> {
  const config = await openConfig();
  const settings = config.read();
  const usage = await usageByKey(settings.usage.store, config.dir);
  const rows = Object.values(settings.keys).map((record) => {
    const used = usage?.get(record.developer);
    return {
      developer: record.developer,
      organisation: record.organisation,
      tier: record.tier,
      cap_tokens: record.capTokens,
      rate_limit: record.rateLimit ? { requests_per_minute: record.rateLimit.requestsPerMinute ?? null, tokens_per_minute: record.rateLimit.tokensPerMinute ?? null } : null,
      key_hint: record.hint,
      created_at: record.createdAt,
      local: settings.localKey !== undefined && hashKey(settings.localKey) === record.hash,
      // The 30-day window's usage; null when the usage store could not be read.
      usage: usage ? { tokens: used?.total_tokens ?? 0, requests: used?.requests ?? 0, cost_usd: used ? used.cost_usd : 0 } : null,
    };
  });
  if (options.json) return printJson(rows);
  if (rows.length === 0) return printLine('No keys issued yet. Run svc-router init, or svc-router keys issue --developer SLUG.');
  printTable(
    rows.map((row) => [
      row.developer + (row.local ? ' (local)' : ''),
      row.organisation,
      row.tier,
      formatCount(row.cap_tokens),
      row.rate_limit ? `${perMinute(row.rate_limit.requests_per_minute, '-')}/${perMinute(row.rate_limit.tokens_per_minute, '-')}` : '-',
      row.usage ? formatCount(row.usage.tokens) : 'n/a',
      row.usage ? formatUsd(row.usage.cost_usd) : 'n/a',
      row.key_hint,
      row.created_at,
    ]),
    ['DEVELOPER', 'ORGANISATION', 'TIER', 'CAP', 'RPM/TPM', 'USED (30 D)', 'COST', 'KEY', 'CREATED'],
  );
}

/** Each developer's usage over the window, or undefined (with a warning) when the store cannot be read. */
async function usageByKey(store: string, dir: string): Promise<Map<string, UsageSlice> | undefined> {
  const ledger = openLedger(store, dir);
  try {
    return new Map(sliceUsage(await ledger.breakdown()).by_key.map((slice) => [slice.name, slice]));
  } catch (error) {
    warn(`usage is not shown: ${(error as Error).message}`);
    return undefined;
  } finally {
    await ledger.close();
  }
}

export async function runKeysRevoke(slug: string): Promise<void> {
  const developer = parseSlug(slug);
  const config = await openConfig();
  requireKey(config, developer);
  config.update((settings) => {
    if (settings.localKey && hashKey(settings.localKey) === settings.keys[developer]?.hash) delete settings.localKey;
    delete settings.keys[developer];
  });
  printLine(`${chalk.green('✓')} Revoked the key of ${chalk.bold(developer)}; a running server refuses it from its next request.`);
}

/** Sets a key's per-minute limits (`--rpm`, `--tpm`), or with --clear removes them. */
export async function runKeysLimit(slug: string, options: { rpm?: string; tpm?: string; clear?: boolean }): Promise<void> {
  const developer = parseSlug(slug);
  const limit: RateLimitSettings = {};
  if (options.rpm !== undefined) limit.requestsPerMinute = parsePositiveInteger(options.rpm, '--rpm');
  if (options.tpm !== undefined) limit.tokensPerMinute = parsePositiveInteger(options.tpm, '--tpm');
  if (!options.clear && Object.keys(limit).length === 0) throw usageError('give --rpm and/or --tpm (or --clear)');
  const config = await openConfig();
  requireKey(config, developer);
  if (options.clear) {
    config.update((settings) => {
      delete settings.keys[developer]!.rateLimit;
    });
    printLine(`${chalk.green('✓')} ${chalk.bold(developer)} has no rate limits`);
    return;
  }
  config.update((settings) => {
    settings.keys[developer]!.rateLimit = { ...settings.keys[developer]!.rateLimit, ...limit };
  });
  const set = config.read().keys[developer]!.rateLimit!;
  printLine(
    `${chalk.green('✓')} ${chalk.bold(developer)} may send ${perMinute(set.requestsPerMinute, 'unlimited')} requests and ${perMinute(set.tokensPerMinute, 'unlimited')} tokens per minute (shared by every router on the usage store)`,
  );
}

/**
 * Changes a developer's 30-day token cap and keeps the key: what the 429 at the cap points to.
 * A running server reads the change on its next request.
 */
export async function runKeysCap(slug: string, tokens: string, options: { json?: boolean }): Promise<void> {
  const developer = parseSlug(slug);
  const cap = parsePositiveInteger(tokens, 'the cap');
  const config = await openConfig();
  requireKey(config, developer);
  let before = 0;
  config.update((settings) => {
    const record = settings.keys[developer]!;
    before = record.capTokens;
    record.capTokens = cap;
  });
  if (options.json) return printJson({ developer, cap_tokens: cap, previous_cap_tokens: before });
  printLine(`${chalk.green('✓')} Cap of ${chalk.bold(developer)}: ${formatCount(cap)} tokens / 30 days (was ${formatCount(before)}); the key is unchanged.`);
}

/** A developer's key record must exist for the command to act on it (exit 1 when it does not). */
function requireKey(config: ConfigStore, developer: string): void {
  requireStored(config, 'keys', developer, `no key is issued for developer '${developer}'${didYouMean(developer, Object.keys(config.read().keys))} (svc-router keys list shows who has one)`);
}

/** A per-minute limit, or what stands for none. */
const perMinute = (limit: number | null | undefined, none: string): string => (limit === null || limit === undefined ? none : formatCount(limit));
