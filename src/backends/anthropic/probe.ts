import type { BackendProbe } from '../backend.js';
import { readDataIds } from '../http/model-list.js';
import { ANTHROPIC_VERSION } from './api-version.js';
import { anthropicAuth } from './upstream-headers.js';

/**
 * GET /v1/models with the key and `anthropic-version` as the backend's Messages calls carry them
 * (its `auth` form, its pinned version) (https://docs.anthropic.com/en/api/models-list). It pages
 * 20 models at a time by default; 1000 is its largest page.
 */
export const probe: BackendProbe = {
  modelList: (baseUrl, key, settings = {}) => ({
    url: `${baseUrl.replace(/\/v1$/, '')}/v1/models?limit=1000`,
    headers: { 'anthropic-version': settings.anthropicVersion ?? ANTHROPIC_VERSION, ...anthropicAuth(settings, key) },
  }),
  readModels: readDataIds,
};
