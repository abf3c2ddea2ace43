/**
 * Google's Model resource (https://ai.google.dev/api/models#Model) for the svc SKUs: named
 * `models/{id}` as Gemini's are, with the input window where the route's model has a known one,
 * and the methods this router serves for it. One page holds every model, so no `nextPageToken`.
 */
export function geminiModelEntry(id: string, contextWindow?: (id: string) => number | undefined) {
  const window = contextWindow?.(id);
  return {
    name: `models/${id}`,
    baseModelId: id,
    version: '001',
    displayName: id,
    description: `svc-router's ${id}, served by the route the router's config sets for it.`,
    ...(window !== undefined ? { inputTokenLimit: window } : {}),
    supportedGenerationMethods: ['generateContent', 'countTokens'],
  };
}

/** Google's ListModelsResponse. */
export const geminiModelList = (ids: readonly string[], contextWindow?: (id: string) => number | undefined) => ({ models: ids.map((id) => geminiModelEntry(id, contextWindow)) });
