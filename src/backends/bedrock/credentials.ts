import { readFileSync } from 'node:fs';
import { RouterError } from '../../core/errors.js';
import { rememberSecret } from '../../core/redact.js';
import type { AwsCredentials } from './sigv4.js';
import { readProfile, type Profile } from './shared-files.js';

/**
 * AWS credentials from the standard sources, in the SDKs' order
 * (https://docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html):
 * a named profile when one is chosen (the backend's `awsProfile`, else $AWS_PROFILE) and only
 * that; otherwise the environment, the `default` profile of the shared files, the container
 * credentials endpoint, then EC2 instance metadata (IMDSv2). Static keys are read at each call (a
 * changed file or variable counts at once); temporary ones are kept until shortly before they expire.
 */

export interface CredentialOptions {
  backend: string;
  profile?: string;
  env?: NodeJS.ProcessEnv;
  /** For tests: where instance metadata is served. */
  fetch?: typeof fetch;
}

/** Temporary credentials are renewed this long before they expire. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** The link-local endpoints answer at once or not at all. */
const METADATA_TIMEOUT_MS = 1_000;

const cached = new Map<string, AwsCredentials>();

export async function resolveAwsCredentials(options: CredentialOptions): Promise<AwsCredentials> {
  const credentials = await findCredentials(options);
  // Scrubbed from every upstream error and log line from now on, like an API key.
  rememberSecret(credentials.secretAccessKey);
  if (credentials.sessionToken) rememberSecret(credentials.sessionToken);
  return credentials;
}

/**
 * The credentials a named profile, the environment or the default profile hold, read at once
 * (doctor's probe builds its request without waiting); undefined when only the endpoints may.
 */
export function staticCredentials(options: CredentialOptions): AwsCredentials | undefined {
  const env = options.env ?? process.env;
  const named = options.profile ?? (env.AWS_PROFILE || undefined);
  if (named !== undefined) {
    const profile = readProfile(named, env);
    if (!profile) throw noCredentials(options.backend, `the AWS profile '${named}' is in neither the shared credentials nor the config file`);
    return fromProfile(options.backend, named, profile);
  }
  const fromEnv = fromEnvironment(env);
  if (fromEnv) return fromEnv;
  const profile = readProfile('default', env);
  if (profile && (profile.aws_access_key_id || profile.role_arn || profile.sso_session || profile.credential_process)) return fromProfile(options.backend, 'default', profile);
  return undefined;
}

async function findCredentials(options: CredentialOptions): Promise<AwsCredentials> {
  const env = options.env ?? process.env;
  const known = staticCredentials(options);
  if (known) return known;
  const container = containerEndpoint(env);
  if (container) return temporary(`container ${container.url}`, () => fromContainer(options, container));
  if (env.AWS_EC2_METADATA_DISABLED !== 'true') {
    const endpoint = (env.AWS_EC2_METADATA_SERVICE_ENDPOINT || 'http://169.254.169.254').replace(/\/+$/, '');
    try {
      return await temporary(`imds ${endpoint}`, () => fromInstanceMetadata(options, endpoint));
    } catch {
      // Not on EC2 (nothing answers), or no role attached: no source had credentials.
    }
  }
  throw noCredentials(options.backend, 'none is set');
}

function noCredentials(backend: string, why: string): RouterError {
  return new RouterError(
    502,
    'configuration',
    `Backend '${backend}' has no AWS credentials: ${why}. Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile in ~/.aws/credentials (AWS_PROFILE or the backend's awsProfile), or run where container or instance credentials are served.`,
    undefined,
    'upstream_no_key',
  );
}

function fromEnvironment(env: NodeJS.ProcessEnv): AwsCredentials | undefined {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) return undefined;
  return { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) };
}

function fromProfile(backend: string, name: string, profile: Profile): AwsCredentials {
  const accessKeyId = profile.aws_access_key_id;
  const secretAccessKey = profile.aws_secret_access_key;
  if (accessKeyId && secretAccessKey) return { accessKeyId, secretAccessKey, ...(profile.aws_session_token ? { sessionToken: profile.aws_session_token } : {}) };
  // Roles, SSO and credential processes need calls to STS or SSO that this backend does not make.
  const kind = profile.role_arn ? 'role_arn' : profile.sso_session || profile.sso_start_url ? 'SSO' : profile.credential_process ? 'credential_process' : undefined;
  throw noCredentials(
    backend,
    kind
      ? `the AWS profile '${name}' uses ${kind}, which this backend does not resolve; export the session's keys (aws configure export-credentials --format env) instead`
      : `the AWS profile '${name}' has no aws_access_key_id and aws_secret_access_key`,
  );
}

/** Temporary credentials, kept by source until shortly before they expire. */
async function temporary(source: string, load: () => Promise<AwsCredentials>): Promise<AwsCredentials> {
  const kept = cached.get(source);
  if (kept && (kept.expiresAt === undefined || kept.expiresAt - RENEW_BEFORE_MS > Date.now())) return kept;
  const fresh = await load();
  if (cached.size > 16) cached.clear();
  cached.set(source, fresh);
  return fresh;
}

/** https://docs.aws.amazon.com/sdkref/latest/guide/feature-container-credentials.html */
function containerEndpoint(env: NodeJS.ProcessEnv): { url: string; token?: string } | undefined {
  const relative = env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI;
  const url = relative ? `http://169.254.170.2${relative.startsWith('/') ? '' : '/'}${relative}` : env.AWS_CONTAINER_CREDENTIALS_FULL_URI;
  if (!url) return undefined;
  let token = env.AWS_CONTAINER_AUTHORIZATION_TOKEN;
  const tokenFile = env.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE;
  if (tokenFile) {
    try {
      token = readTokenFile(tokenFile);
    } catch {
      token = undefined;
    }
  }
  return { url, ...(token ? { token } : {}) };
}

const readTokenFile = (path: string): string => readFileSync(path, 'utf8').trim();

async function fromContainer(options: CredentialOptions, endpoint: { url: string; token?: string }): Promise<AwsCredentials> {
  const fetcher = options.fetch ?? fetch;
  const response = await fetcher(endpoint.url, { headers: endpoint.token ? { authorization: endpoint.token } : {}, signal: AbortSignal.timeout(METADATA_TIMEOUT_MS) }).catch(() => undefined);
  if (!response?.ok) throw noCredentials(options.backend, `the container credentials endpoint answered ${response ? response.status : 'nothing'}`);
  return temporaryCredentials(options.backend, await response.json().catch(() => undefined));
}

/** IMDSv2: a session token (PUT), the role's name, then its credentials (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instance-metadata-security-credentials.html). */
async function fromInstanceMetadata(options: CredentialOptions, endpoint: string): Promise<AwsCredentials> {
  const fetcher = options.fetch ?? fetch;
  const timeout = () => AbortSignal.timeout(METADATA_TIMEOUT_MS);
  const tokenResponse = await fetcher(`${endpoint}/latest/api/token`, { method: 'PUT', headers: { 'x-aws-ec2-metadata-token-ttl-seconds': '21600' }, signal: timeout() });
  if (!tokenResponse.ok) throw new Error('no token');
  const headers = { 'x-aws-ec2-metadata-token': await tokenResponse.text() };
  const base = `${endpoint}/latest/meta-data/iam/security-credentials/`;
  const roles = await fetcher(base, { headers, signal: timeout() });
  if (!roles.ok) throw new Error('no role');
  const role = (await roles.text()).split('\n')[0]?.trim();
  if (!role) throw new Error('no role');
  const response = await fetcher(base + encodeURIComponent(role), { headers, signal: timeout() });
  if (!response.ok) throw new Error('no credentials');
  return temporaryCredentials(options.backend, await response.json());
}

function temporaryCredentials(backend: string, body: unknown): AwsCredentials {
  const fields = (body ?? {}) as { AccessKeyId?: unknown; SecretAccessKey?: unknown; Token?: unknown; Expiration?: unknown };
  if (typeof fields.AccessKeyId !== 'string' || typeof fields.SecretAccessKey !== 'string') throw noCredentials(backend, 'the credentials endpoint answered without keys');
  const expiresAt = typeof fields.Expiration === 'string' ? Date.parse(fields.Expiration) : NaN;
  return {
    accessKeyId: fields.AccessKeyId,
    secretAccessKey: fields.SecretAccessKey,
    ...(typeof fields.Token === 'string' ? { sessionToken: fields.Token } : {}),
    ...(Number.isFinite(expiresAt) ? { expiresAt } : {}),
  };
}
