import type { UsageReport } from '../../usage/slice.js';
import { printJson, printLine } from '../output.js';
import { openClient, type ConnectionOptions } from '../router-client.js';
import { usageLines } from '../usage-chart.js';
import { ensureOk } from './quick-checks.js';

export interface UsageOptions extends ConnectionOptions {
  json?: boolean;
}

/** `svc-router usage`: GET /admin/usage (in-process with the local key, or over HTTP), as tables and bars. */
export async function runUsage(options: UsageOptions): Promise<void> {
  const client = await openClient(options);
  try {
    const report = ensureOk(await client.call('GET', '/admin/usage'), client.sent) as UsageReport;
    if (options.json) return printJson(report);
    for (const line of usageLines(report)) printLine(line);
  } finally {
    await client.close();
  }
}
