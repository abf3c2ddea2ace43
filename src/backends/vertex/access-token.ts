import { RouterError } from '../../core/errors.js';
import { rememberSecret } from '../../core/redact.js';
import { CredentialsProblem, readServiceAccount, signedAssertion } from './service-account.js';

/**
 * Google access tokens for Vertex AI, without google-auth-library: a service-account key file
 * (the backend's `credentials`, else $GOOGLE_APPLICATION_CREDENTIALS) signs a JWT exchanged at
 * its token URI; without one, the metadata server of the machine (GCE, GKE workload identity,
 * Cloud Run) hands out its service account's token
 * (https://cloud.google.com/compute/docs/access/authenticate-workloads#applications).
 * A token is kept until shortly before it expires, one per credential, and one fetch serves every
 * call that waits for it. Tokens are remembered as secrets, so no error or log line shows them.
 */

/** A token is renewed this long before it expires, so none expires in flight. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** How long a token request may take. */
const TOKEN_TIMEOUT_MS = 15_000;
/** Credentials come from configuration, not clients; still, the cache stays small. */
const MAX_CACHED = 64;

/** `GCE_METADATA_HOST` moves the metadata server (an emulator, a test), as Google's own clients allow. */
const metadataHost = (): string => process.env.GCE_METADATA_HOST || 'metadata.google.internal';

interface Cached {
  token?: { value: string; renewAt: number };
  pending?: Promise<string>;
}
const cache = new Map<string, Cached>();
const cacheKey = (credentialsFile: string | undefined): string => (credentialsFile ? `file:${credentialsFile}` : `metadata:${metadataHost()}`);

/** The credentials file the backend uses, if any. */
export const credentialsFileOf = (configured: string | undefined): string | undefined => configured || process.env.GOOGLE_APPLICATION_CREDENTIALS || undefined;

/** A valid access token for the backend's credentials, fetched only when the cached one is near its end. */
export async function accessToken(backend: string, credentialsFile: string | undefined): Promise<string> {
  const key = cacheKey(credentialsFile);
  let entry = cache.get(key);
  if (!entry) {
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    entry = {};
    cache.set(key, entry);
  }
  if (entry.token && Date.now() < entry.token.renewAt) return entry.token.value;
  const held = entry;
  held.pending ??= (credentialsFile ? fromServiceAccount(backend, credentialsFile) : fromMetadataServer(backend))
    .then(({ value, expiresInSeconds }) => {
      rememberSecret(value);
      held.token = { value, renewAt: Date.now() + Math.max(0, expiresInSeconds * 1000 - RENEW_BEFORE_MS) };
      return value;
    })
    .finally(() => {
      held.pending = undefined;
    });
  return held.pending;
}

/** Forgets a token Vertex refused (revoked, or its account changed), so the next call fetches another; a newer one is kept. */
export function forgetAccessToken(credentialsFile: string | undefined, token: string): void {
  const entry = cache.get(cacheKey(credentialsFile));
  if (entry?.token?.value === token) entry.token = undefined;
}

/** Forgets every cached token (tests, and a changed credentials file that must be read again). */
export function forgetAccessTokens(): void {
  cache.clear();
}

type Fetched = { value: string; expiresInSeconds: number };

async function fromServiceAccount(backend: string, file: string): Promise<Fetched> {
  let account;
  try {
    account = await readServiceAccount(file);
  } catch (error) {
    if (error instanceof CredentialsProblem) throw failure(backend, `${error.message}`);
    throw error;
  }
  const assertion = signedAssertion(account, Math.floor(Date.now() / 1000));
  const body = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
  return tokenFrom(backend, `the token endpoint ${new URL(account.tokenUri).origin}`, account.tokenUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
  });
}

function fromMetadataServer(backend: string): Promise<Fetched> {
  return tokenFrom(backend, 'the metadata server', `http://${metadataHost()}/computeMetadata/v1/instance/service-accounts/default/token`, {
    method: 'GET',
    headers: { 'metadata-flavor': 'Google' },
  });
}

/** One token request; its answer `{access_token, expires_in}`, or an error naming the source and Google's error code only. */
async function tokenFrom(backend: string, source: string, url: string, init: RequestInit): Promise<Fetched> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS) });
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? 'did not answer in time' : 'could not be reached';
    const hint = source === 'the metadata server' ? ' (outside Google Cloud, give the backend a service-account key with --credentials or $GOOGLE_APPLICATION_CREDENTIALS)' : '';
    // Outside Google Cloud nothing answers for the metadata server: no credentials, not a network fault.
    throw failure(backend, `${source} ${reason}${hint}`, source === 'the metadata server' ? 'configuration' : 'upstream');
  }
  let json: Record<string, unknown> = {};
  try {
    const parsed: unknown = await response.json();
    if (typeof parsed === 'object' && parsed !== null) json = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: said below by the status, or by the missing token.
  }
  if (!response.ok) {
    // Google's OAuth error code (invalid_grant, …) is safe to show; its description may quote the assertion's claims, so it is left out.
    const code = typeof json.error === 'string' && /^[a-z_]{1,40}$/.test(json.error) ? ` (${json.error})` : '';
    throw failure(backend, `${source} refused a token with HTTP ${response.status}${code}`);
  }
  const value = json.access_token;
  const expiresIn = json.expires_in;
  if (typeof value !== 'string' || value === '') throw failure(backend, `${source} answered without an access_token`);
  return { value, expiresInSeconds: typeof expiresIn === 'number' && expiresIn > 0 ? expiresIn : 300 };
}

/**
 * The backend's credentials failed: the router's configuration (unless the token endpoint could
 * not be reached, which may pass), so a 502 the route may fall back from.
 */
const failure = (backend: string, what: string, kind: 'configuration' | 'upstream' = 'configuration'): RouterError =>
  new RouterError(502, kind, `Backend '${backend}' has no Google access token: ${what}.`, undefined, 'upstream_auth');
