import type { SessionsReport } from '../../sessions/session-book.js';
import { openConfig } from '../config-in-force.js';
import { printJson, printLine } from '../output.js';
import { openClient, type ConnectionOptions } from '../router-client.js';
import { routerAddress } from '../router-address.js';
import { sessionLines } from '../session-lines.js';
import { ensureOk } from './quick-checks.js';

export interface SessionsOptions extends ConnectionOptions {
  json?: boolean;
}

/**
 * `svc-router sessions`: GET /admin/sessions of the running router. Sessions live in the memory of
 * the router that served them, so this always asks one over HTTP: the given base URL, else the
 * running serve's address, else the configured one.
 */
export async function runSessions(options: SessionsOptions): Promise<void> {
  // openClient reads SVC_ROUTER_BASE_URL itself (and names it in its errors).
  const baseUrl = options.baseUrl ?? (process.env.SVC_ROUTER_BASE_URL ? undefined : routerAddress((await openConfig()).read()).origin);
  const client = await openClient({ ...options, ...(baseUrl ? { baseUrl } : {}) });
  try {
    const report = ensureOk(await client.call('GET', '/admin/sessions'), client.sent) as SessionsReport;
    if (options.json) return printJson(report);
    for (const line of sessionLines(report)) printLine(line);
  } finally {
    await client.close();
  }
}
