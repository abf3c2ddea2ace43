import { refusedError } from '../cli-error.js';
import { chalk, printJson, printLine } from '../output.js';
import { formatCount, formatPercent, formatUsd } from '../../core/format-numbers.js';
import { keyHint, slugOfKey } from '../../core/router-keys.js';
import { providerKeyOf } from '../../identity/provider-keys.js';
import { whitespaceIn } from '../../identity/key-whitespace.js';
import { KEY_ENV } from '../client-settings.js';
import { errorCode, errorMessage, openClient, type ClientResponse, type ConnectionOptions, type SentKey } from '../router-client.js';

export interface QuickCheckOptions extends ConnectionOptions {
  json?: boolean;
}

/**
 * Fails with the server's own message when a quick check gets an error status; a key the router
 * does not know is told in the CLI's words instead (the router's points at `whoami`, which is
 * where the user already is), naming which key was sent and what to do.
 */
export function ensureOk(response: ClientResponse, sent?: SentKey): unknown {
  if (response.status >= 400) {
    const serverCode = errorCode(response.json);
    const unknown = response.status === 401 && sent && !whitespaceIn(sent.key) && !providerKeyOf(sent.key);
    const message = unknown ? unknownKeyMessage(sent) : errorMessage(response.json, response.status);
    throw refusedError(`${response.status}: ${message}`, { status: response.status, ...(serverCode ? { server_code: serverCode } : {}) });
  }
  return response.json;
}

/** `Invalid API key: the router does not know the key given with --key (svc_bob_AbCd…); …`: which key, and the way out. */
function unknownKeyMessage(sent: SentKey): string {
  const shown = slugOfKey(sent.key) !== undefined ? ` (${keyHint(sent.key)})` : ' (not an svc_… key)';
  const router = sent.origin ? `the router at ${sent.origin}` : 'this router';
  const remedy = sent.origin
    ? `that router did not issue it: use a key its admin issued there (svc-router keys issue --developer SLUG on that machine), with --key or ${KEY_ENV}`
    : sent.stored
      ? 'config.json lists no key with its hash: svc-router init --force issues a new local key (clients given the old one stop working)'
      : `it is none of the keys in config.json: svc-router keys list names who has one, svc-router keys issue --developer SLUG issues one, and svc-router env prints your own`;
  return `Invalid API key: ${router} does not know ${sent.source}${shown}; ${remedy}.`;
}

export async function runWhoami(options: QuickCheckOptions): Promise<void> {
  const client = await openClient(options);
  try {
    const body = ensureOk(await client.call('GET', '/whoami'), client.sent) as WhoamiBody;
    if (options.json) return printJson(body);
    const { usage } = body;
    const share = usage.cap_tokens > 0 ? ` (${formatPercent(usage.tokens_used / usage.cap_tokens)})` : '';
    printLine(`${chalk.bold(body.developer)} · ${body.organisation} · tier ${body.tier}`);
    printLine(`usage: ${formatCount(usage.tokens_used)} of ${formatCount(usage.cap_tokens)} tokens${share} in ${formatCount(usage.requests)} requests since ${usage.window_start.slice(0, 10)}`);
    printLine(`remaining: ${chalk.green(formatCount(usage.remaining_tokens))} tokens`);
    if (usage.cost_usd !== undefined) {
      const unpriced = usage.unpriced_requests ? ` (${formatCount(usage.unpriced_requests)} request(s) without a known price not included)` : '';
      printLine(`cost: ${formatUsd(usage.cost_usd)}${unpriced}`);
    }
  } finally {
    await client.close();
  }
}

interface WhoamiBody {
  developer: string;
  organisation: string;
  tier: string;
  usage: { tokens_used: number; cap_tokens: number; remaining_tokens: number; requests: number; window_start: string; cost_usd?: number | null; unpriced_requests?: number };
}

export async function runModels(options: QuickCheckOptions): Promise<void> {
  const client = await openClient(options);
  try {
    const body = ensureOk(await client.call('GET', '/v1/models'), client.sent) as { data: Array<{ id: string }> };
    if (options.json) return printJson(body);
    for (const model of body.data) printLine(model.id);
  } finally {
    await client.close();
  }
}
