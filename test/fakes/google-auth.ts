import { createVerify, randomBytes, type KeyObject } from 'node:crypto';
import { sendJson, startFakeServer, type FakeUpstream } from './fake-server.js';

/**
 * Fakes of Google's two sources of access tokens, built from their references: the OAuth 2.0
 * token endpoint taking a service account's signed JWT (grant type jwt-bearer,
 * https://developers.google.com/identity/protocols/oauth2/service-account#httprest), which checks
 * the signature with the account's public key and the claims as Google does; and the metadata
 * server's token path, which answers only calls carrying `Metadata-Flavor: Google`
 * (https://cloud.google.com/compute/docs/metadata/querying-metadata). Every token either issues is
 * in `issued`, for the fake Vertex AI to accept.
 */

export interface GoogleTokenSource extends FakeUpstream {
  /** Tokens issued so far, newest last. */
  issued: string[];
}

const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';

export const newAccessToken = (): string => `ya29.fake-${randomBytes(24).toString('base64url')}`;

/** The token endpoint for one service account (its email and public key); `url` + `/token` is its token_uri. */
export async function startGoogleTokenEndpoint(account: { clientEmail: string; publicKey: KeyObject }, options: { expiresIn?: number } = {}): Promise<GoogleTokenSource> {
  const issued: string[] = [];
  const server = await startFakeServer(async (request, res) => {
    const tokenUri = `${server.origin}/token`;
    if (request.method !== 'POST' || request.path !== '/token') return sendJson(res, 404, { error: 'not_found' });
    if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return sendJson(res, 400, { error: 'invalid_request', error_description: 'Bad Request' });
    const form = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type: ' + form.get('grant_type') });
    const problem = assertionProblem(form.get('assertion') ?? '', account, tokenUri);
    if (problem) return sendJson(res, 400, { error: 'invalid_grant', error_description: problem });
    const token = newAccessToken();
    issued.push(token);
    sendJson(res, 200, { access_token: token, expires_in: options.expiresIn ?? 3599, token_type: 'Bearer' });
  });
  return { url: server.origin, requests: server.requests, close: server.close, issued };
}

/** What Google would refuse in a service account's assertion, or undefined. */
function assertionProblem(assertion: string, account: { clientEmail: string; publicKey: KeyObject }, tokenUri: string): string | undefined {
  const parts = assertion.split('.');
  if (parts.length !== 3) return 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.';
  const [header, claims, signature] = parts as [string, string, string];
  const verified = createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(account.publicKey, Buffer.from(signature, 'base64url'));
  if (!verified) return 'Invalid JWT Signature.';
  const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  if (head.alg !== 'RS256') return 'Invalid JWT: unsupported algorithm';
  const claim = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8'));
  const now = Math.floor(Date.now() / 1000);
  if (claim.iss !== account.clientEmail) return 'Invalid JWT: the issuer is not the service account.';
  if (claim.aud !== tokenUri) return 'Invalid JWT: the audience is not this token endpoint.';
  if (typeof claim.scope !== 'string' || !claim.scope.split(' ').includes(CLOUD_PLATFORM)) return 'Invalid JWT: no scope asked.';
  if (typeof claim.iat !== 'number' || typeof claim.exp !== 'number' || claim.iat > now + 60 || claim.exp <= now || claim.exp - claim.iat > 3600) {
    return 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.';
  }
  return undefined;
}

/** The metadata server's default service-account token path (workload identity, GCE, Cloud Run); `host` is for GCE_METADATA_HOST. */
export async function startMetadataServer(): Promise<GoogleTokenSource & { host: string }> {
  const issued: string[] = [];
  const server = await startFakeServer(async (request, res) => {
    if (request.headers['metadata-flavor'] !== 'Google') return sendJson(res, 403, 'Missing required header "Metadata-Flavor"');
    if (request.method !== 'GET' || request.path.split('?')[0] !== '/computeMetadata/v1/instance/service-accounts/default/token') return sendJson(res, 404, 'Not Found');
    const token = newAccessToken();
    issued.push(token);
    sendJson(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  });
  return { url: server.origin, host: new URL(server.origin).host, requests: server.requests, close: server.close, issued };
}
