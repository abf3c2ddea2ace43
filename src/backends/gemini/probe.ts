import type { BackendProbe } from '../backend.js';
import { KEY_NOT_VALID, versionedBase } from './endpoint.js';

/**
 * GET {base}/{version}/models with `x-goog-api-key` (https://ai.google.dev/api/models#method:-models.list):
 * `{ models: [{ name: "models/…" }], nextPageToken }`, 50 a page by default and 1000 at most. A
 * key Google does not know is refused with 400, not 401.
 */
export const probe: BackendProbe = {
  modelList: (baseUrl, key, settings) => ({
    url: `${versionedBase(baseUrl, settings?.apiVersion)}/models?pageSize=1000`,
    headers: { ...(key ? { 'x-goog-api-key': key } : {}) },
  }),
  readModels: (body) => {
    const list = body as { models?: unknown; nextPageToken?: unknown } | null;
    if (typeof list !== 'object' || list === null || !Array.isArray(list.models)) return undefined;
    const ids = list.models.flatMap((model: unknown) => {
      const name = (model as { name?: unknown } | null)?.name;
      return typeof name === 'string' ? [name.replace(/^models\//, '')] : [];
    });
    return { ids, complete: typeof list.nextPageToken !== 'string' || list.nextPageToken === '' };
  },
  listedAs: (upstreamModel) => upstreamModel.replace(/^models\//, ''),
  refusesKey: (status, body) => status === 400 && KEY_NOT_VALID.test(JSON.stringify(body ?? '')),
};
