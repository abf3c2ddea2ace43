/**
 * The model list shape OpenAI's and Anthropic's APIs share: `{ data: [{ id }] }`. Anthropic pages
 * it (`has_more`); OpenAI returns every model at once.
 */
export function readDataIds(body: unknown): { ids: string[]; complete: boolean } | undefined {
  const list = body as { data?: unknown; has_more?: unknown } | null;
  if (typeof list !== 'object' || list === null || !Array.isArray(list.data)) return undefined;
  const ids = list.data.flatMap((model: unknown) => (typeof (model as { id?: unknown } | null)?.id === 'string' ? [(model as { id: string }).id] : []));
  return { ids, complete: list.has_more !== true };
}
