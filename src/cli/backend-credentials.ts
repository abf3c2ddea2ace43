import { staticCredentials } from '../backends/bedrock/credentials.js';
import type { BackendSettings } from '../config/settings.js';
import { SERVE_ONLY } from './key-variables.js';

/**
 * Where a backend that signs its calls with cloud credentials (Vertex AI's Google service
 * account, Bedrock's AWS keys) finds them, read without a network call, in the environment given
 * (the running serve's, as far as its state file tells: key-variables.ts, serveEnvironment).
 */
export type CloudCredentials =
  /** Found: a file, a profile, variables. */
  | { kind: 'found'; source: string; file?: string }
  /** In variables only the running serve has: not readable from here. */
  | { kind: 'serve-only'; source: string }
  /** Nothing configured: the machine's endpoint (metadata server, container, instance) is asked at call time. */
  | { kind: 'endpoint'; source: string; url: string }
  /** Configured, but not usable: what is wrong. */
  | { kind: 'broken'; problem: string }
  /** None at all. */
  | { kind: 'none'; problem: string };

/** The metadata server Google's clients ask without a key file; GCE_METADATA_HOST moves it, as theirs allow. */
const metadataHost = (env: NodeJS.ProcessEnv): string => (env.GCE_METADATA_HOST && env.GCE_METADATA_HOST !== SERVE_ONLY ? env.GCE_METADATA_HOST : 'metadata.google.internal');

/** A vertex backend's Google credentials, or a bedrock backend's AWS credentials when it has no API key; undefined for other backends. */
export function cloudCredentials(backend: BackendSettings, env: NodeJS.ProcessEnv): CloudCredentials | undefined {
  if (backend.type === 'vertex') return googleCredentials(backend, env);
  if (backend.type === 'bedrock' && backend.apiKey === undefined && backend.apiKeyEnv === undefined && !backend.keyPool?.keys.length) return awsCredentials(backend, env);
  return undefined;
}

function googleCredentials(backend: BackendSettings, env: NodeJS.ProcessEnv): CloudCredentials {
  if (backend.credentials) return { kind: 'found', source: `service-account file ${backend.credentials}`, file: backend.credentials };
  const variable = env.GOOGLE_APPLICATION_CREDENTIALS;
  if (variable === SERVE_ONLY) return { kind: 'serve-only', source: '$GOOGLE_APPLICATION_CREDENTIALS' };
  if (variable) return { kind: 'found', source: `service-account file ${variable} ($GOOGLE_APPLICATION_CREDENTIALS)`, file: variable };
  const host = metadataHost(env);
  return { kind: 'endpoint', source: `the metadata server (${host})`, url: `http://${host}` };
}

function awsCredentials(backend: BackendSettings, env: NodeJS.ProcessEnv): CloudCredentials {
  if (env.AWS_SHARED_CREDENTIALS_FILE === SERVE_ONLY || env.AWS_CONFIG_FILE === SERVE_ONLY) return { kind: 'serve-only', source: 'the AWS files $AWS_SHARED_CREDENTIALS_FILE and $AWS_CONFIG_FILE name' };
  const named = backend.awsProfile ?? (env.AWS_PROFILE || undefined);
  if (named === SERVE_ONLY) return { kind: 'serve-only', source: 'the AWS profile $AWS_PROFILE names' };
  let found;
  try {
    found = staticCredentials({ backend: 'bedrock', ...(named !== undefined ? { profile: named } : {}), env });
  } catch (error) {
    // `Backend 'bedrock' has no AWS credentials: WHY. Set …`: the why, for the backend's own line.
    const why = /has no AWS credentials: (.*?)\. Set /.exec((error as Error).message)?.[1] ?? (error as Error).message;
    return { kind: 'broken', problem: why };
  }
  if (found) {
    if (found.accessKeyId === SERVE_ONLY || found.secretAccessKey === SERVE_ONLY) return { kind: 'serve-only', source: '$AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY' };
    return { kind: 'found', source: named !== undefined ? `AWS profile '${named}'` : env.AWS_ACCESS_KEY_ID ? '$AWS_ACCESS_KEY_ID' : "AWS profile 'default'" };
  }
  const container = env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI || env.AWS_CONTAINER_CREDENTIALS_FULL_URI;
  if (container && container !== SERVE_ONLY) return { kind: 'endpoint', source: 'the container credentials endpoint', url: env.AWS_CONTAINER_CREDENTIALS_FULL_URI || 'http://169.254.170.2' };
  if (container) return { kind: 'serve-only', source: 'the container credentials endpoint' };
  if (env.AWS_EC2_METADATA_DISABLED === 'true') return { kind: 'none', problem: 'none in the environment, no AWS profile, and instance metadata is off (AWS_EC2_METADATA_DISABLED)' };
  const endpoint = env.AWS_EC2_METADATA_SERVICE_ENDPOINT && env.AWS_EC2_METADATA_SERVICE_ENDPOINT !== SERVE_ONLY ? env.AWS_EC2_METADATA_SERVICE_ENDPOINT : 'http://169.254.169.254';
  return { kind: 'endpoint', source: `EC2 instance metadata (${endpoint})`, url: endpoint };
}

/** How `backends list` shows them: `google: service-account file …`, `aws: AWS profile 'work'`. */
export function describeCredentials(backend: BackendSettings, credentials: CloudCredentials): string {
  const cloud = backend.type === 'vertex' ? 'google' : 'aws';
  switch (credentials.kind) {
    case 'found':
    case 'serve-only':
      return `${cloud}: ${credentials.source}`;
    case 'endpoint':
      return `${cloud}: ${credentials.source}, if it answers`;
    case 'broken':
    case 'none':
      return `${cloud}: none usable`;
  }
}
