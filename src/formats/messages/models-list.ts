import { SKU_CREATED } from '../openai-models.js';

/** Anthropic's model entry (`client.models.retrieve`). */
export const anthropicModelEntry = (id: string) => ({ type: 'model', id, display_name: id, created_at: new Date(SKU_CREATED * 1000).toISOString() });

/** Anthropic's model list (`client.models.list`): one page holding every model. */
export const anthropicModelList = (ids: readonly string[]) => ({ data: ids.map(anthropicModelEntry), has_more: false, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null });
