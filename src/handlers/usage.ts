import { requireAdmin } from '../identity/admin.js';
import { sliceUsage } from '../usage/slice.js';
import type { ApiResponse } from './api.js';
import type { RequestContext } from './context.js';

/** GET /admin/usage: everyone's usage and cost over the 30-day window, by key, SKU, upstream model and day (admin keys only). */
export async function handleUsage({ app, identity, settings }: RequestContext): Promise<ApiResponse> {
  requireAdmin(settings, identity);
  return { status: 200, json: sliceUsage(await app.ledger.breakdown()) };
}
