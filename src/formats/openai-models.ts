/** Unix seconds of the SKUs' introduction, so the list is stable across restarts. */
export const SKU_CREATED = 1_767_225_600;

/** OpenAI's model entry (`client.models.retrieve`), used by chat and responses clients. */
export const openaiModelEntry = (id: string) => ({ id, object: 'model', created: SKU_CREATED, owned_by: 'svc-router' });

/** OpenAI's model list (`client.models.list`). */
export const openaiModelList = (ids: readonly string[]) => ({ object: 'list', data: ids.map(openaiModelEntry) });
