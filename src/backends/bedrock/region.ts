import type { BackendSettings } from '../../config/settings.js';
import { RouterError } from '../../core/errors.js';
import { readProfile } from './shared-files.js';

/** The runtime endpoint of a region (https://docs.aws.amazon.com/general/latest/gr/bedrock.html). */
export const bedrockRuntimeUrl = (region: string): string => `https://bedrock-runtime.${region}.amazonaws.com`;

/** The region a Bedrock runtime URL names, when it is AWS's own. */
const regionOfUrl = (baseUrl: string): string | undefined => /^https:\/\/bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?\/?$/.exec(baseUrl)?.[1];

/**
 * The region to sign for: the backend's setting, else the one its AWS URL names, else $AWS_REGION,
 * $AWS_DEFAULT_REGION, then the profile's `region` in the shared config file, as the SDKs read it.
 */
export function resolveRegion(name: string, settings: Pick<BackendSettings, 'region' | 'awsProfile' | 'baseUrl'>, env: NodeJS.ProcessEnv = process.env): string {
  const region =
    settings.region ?? regionOfUrl(settings.baseUrl) ?? (env.AWS_REGION || undefined) ?? (env.AWS_DEFAULT_REGION || undefined) ?? readProfile(settings.awsProfile ?? (env.AWS_PROFILE || 'default'), env)?.region;
  if (!region) throw new RouterError(502, 'configuration', `Backend '${name}' has no AWS region: set its region (backends add --region) or AWS_REGION.`);
  return region;
}
