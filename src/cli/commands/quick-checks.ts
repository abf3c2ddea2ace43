import { refusedError } from '../cli-error.js';
import { chalk, printJson, printLine } from '../output.js';
import { formatCount, formatPercent, formatUsd } from '../../core/format-numbers.js';
import { errorCode, errorMessage, openClient, type ClientResponse, type ConnectionOptions } from '../router-client.js';

export interface QuickCheckOptions extends ConnectionOptions {
  json?: boolean;
}

/** Fails with the server's own message when a quick check gets an error status. */
export function ensureOk(response: ClientResponse): unknown {
  if (response.status >= 400) {
    const serverCode = errorCode(response.json);
    throw refusedError(`${response.status}: ${errorMessage(response.json, response.status)}`, { status: response.status, ...(serverCode ? { server_code: serverCode } : {}) });
  }
  return response.json;
}

export async function runWhoami(options: QuickCheckOptions): Promise<void> {
  const client = await openClient(options);
  try {
    const body = ensureOk(await client.call('GET', '/whoami')) as WhoamiBody;
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
    const body = ensureOk(await client.call('GET', '/v1/models')) as { data: Array<{ id: string }> };
    if (options.json) return printJson(body);
    for (const model of body.data) printLine(model.id);
  } finally {
    await client.close();
  }
}
