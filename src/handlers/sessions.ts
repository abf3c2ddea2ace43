import { requireAdmin } from '../identity/admin.js';
import type { ApiResponse } from './api.js';
import type { RequestContext } from './context.js';

/**
 * GET /admin/sessions: each session this router served (from its memory), with its totals, where
 * it went and every turn whose cached share dropped, with the reason the router saw (admin keys only).
 */
export async function handleSessions({ app, identity, settings }: RequestContext): Promise<ApiResponse> {
  requireAdmin(settings, identity);
  return { status: 200, json: app.sessions.report() };
}
