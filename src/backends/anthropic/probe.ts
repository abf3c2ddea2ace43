import type { BackendProbe } from '../backend.js';
import { readDataIds } from '../http/model-list.js';
import { ANTHROPIC_VERSION } from './api-version.js';

/**
 * GET /v1/models with `x-api-key` and `anthropic-version`, as every Messages call carries them
 * (https://docs.anthropic.com/en/api/models-list). It pages 20 models at a time by default; 1000
 * is its largest page.
 */
export const probe: BackendProbe = {
  modelList: (baseUrl, key) => ({
    url: `${baseUrl.replace(/\/v1$/, '')}/v1/models?limit=1000`,
    headers: { 'anthropic-version': ANTHROPIC_VERSION, ...(key ? { 'x-api-key': key } : {}) },
  }),
  readModels: readDataIds,
};
