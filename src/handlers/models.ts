import { isSkuName, SKUS } from '../routing/skus.js';
import type { ApiResponse } from './api.js';
import type { RequestContext } from './context.js';

/** Unix seconds of the SKUs' introduction, so the list is stable across restarts. */
const SKU_CREATED = 1_767_225_600;

/** GET /v1/models: the three SKUs plus any other svc.* name a route serves; Anthropic's shape for Anthropic clients. */
export async function handleModels({ request, settings }: RequestContext): Promise<ApiResponse> {
  const ids = [...SKUS, ...Object.keys(settings.routes).filter((name) => isSkuName(name) && !name.includes('*') && !(SKUS as readonly string[]).includes(name))];
  if (request.headers['anthropic-version'] !== undefined) {
    const data = ids.map((id) => ({ type: 'model', id, display_name: id, created_at: new Date(SKU_CREATED * 1000).toISOString() }));
    return { status: 200, json: { data, has_more: false, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null } };
  }
  return { status: 200, json: { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: SKU_CREATED, owned_by: 'svc-router' })) } };
}
