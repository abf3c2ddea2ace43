import type { BackendProbe } from '../backend.js';
import { staticCredentials } from './credentials.js';
import { resolveRegion } from './region.js';
import { signRequest } from './sigv4.js';

/** An AWS runtime URL's control-plane twin, where the model list is (bedrock-runtime.R → bedrock.R). */
const controlPlane = (baseUrl: string): string => baseUrl.replace(/^https:\/\/bedrock-runtime(-fips)?\./, 'https://bedrock$1.');

/** A cross-region inference profile's prefix (us., eu., apac., global. …): the list names the model without it. */
const INFERENCE_PROFILE = /^[a-z]{2,6}(?:-[a-z]+)?\.(?=[a-z0-9-]+\.)/;

/**
 * ListFoundationModels (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_ListFoundationModels.html),
 * GET /foundation-models, one page, signed as the backend's calls are: with its API key as a
 * bearer token, else with the credentials the environment or a shared-files profile hold. Container
 * and instance credentials come from endpoints a probe does not wait for: the call then goes
 * unsigned and AWS's refusal says so.
 */
export const probe: BackendProbe = {
  modelList(baseUrl, key, settings = {}) {
    const url = `${controlPlane(baseUrl)}/foundation-models`;
    if (key) return { url, headers: { authorization: `Bearer ${key}` } };
    const credentials = staticCredentials({ backend: 'bedrock', ...(settings.awsProfile ? { profile: settings.awsProfile } : {}) });
    if (!credentials) return { url, headers: {} };
    const region = resolveRegion('bedrock', { baseUrl, ...settings });
    return { url, headers: signRequest({ method: 'GET', url, headers: {}, body: '', region, service: 'bedrock', credentials, now: new Date() }) };
  },
  readModels(body) {
    const summaries = (body as { modelSummaries?: unknown } | null)?.modelSummaries;
    if (!Array.isArray(summaries)) return undefined;
    const ids = summaries.flatMap((summary) => (typeof summary?.modelId === 'string' ? [summary.modelId as string] : []));
    return { ids, complete: true };
  },
  listedAs: (upstreamModel) => upstreamModel.replace(INFERENCE_PROFILE, ''),
};
