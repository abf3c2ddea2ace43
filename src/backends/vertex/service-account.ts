import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/**
 * A service-account key file as the Cloud console writes it (https://cloud.google.com/iam/docs/keys-create-delete),
 * read for the OAuth 2.0 JWT bearer flow (https://developers.google.com/identity/protocols/oauth2/service-account#httprest).
 * Every failure names the file and what is wrong with it, never any of its contents.
 */
export interface ServiceAccount {
  clientEmail: string;
  keyId?: string;
  privateKey: KeyObject;
  tokenUri: string;
}

export const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** Vertex AI's calls need the cloud-platform scope. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** The longest an assertion may live (an hour), as Google's token endpoint allows. */
const ASSERTION_SECONDS = 3600;

export class CredentialsProblem extends Error {}

export async function readServiceAccount(path: string): Promise<ServiceAccount> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CredentialsProblem(`the Google credentials file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CredentialsProblem(`the Google credentials file ${path} is not JSON`);
  }
  const file = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  if (file.type !== 'service_account') throw new CredentialsProblem(`the Google credentials file ${path} is not a service-account key (its type is ${typeof file.type === 'string' ? JSON.stringify(file.type.slice(0, 40)) : 'missing'})`);
  if (typeof file.client_email !== 'string' || file.client_email === '') throw new CredentialsProblem(`the Google credentials file ${path} has no client_email`);
  if (typeof file.private_key !== 'string') throw new CredentialsProblem(`the Google credentials file ${path} has no private_key`);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(file.private_key);
  } catch {
    throw new CredentialsProblem(`the private_key in the Google credentials file ${path} is not a PEM private key`);
  }
  if (privateKey.asymmetricKeyType !== 'rsa') throw new CredentialsProblem(`the private_key in the Google credentials file ${path} is not an RSA key`);
  const tokenUri = typeof file.token_uri === 'string' && /^https?:\/\//.test(file.token_uri) ? file.token_uri : DEFAULT_TOKEN_URI;
  return { clientEmail: file.client_email, ...(typeof file.private_key_id === 'string' ? { keyId: file.private_key_id } : {}), privateKey, tokenUri };
}

const base64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** The signed assertion (RS256) the token endpoint exchanges for an access token. */
export function signedAssertion(account: ServiceAccount, nowSeconds: number): string {
  const header = { alg: 'RS256', typ: 'JWT', ...(account.keyId ? { kid: account.keyId } : {}) };
  const claims = { iss: account.clientEmail, scope: CLOUD_PLATFORM_SCOPE, aud: account.tokenUri, iat: nowSeconds, exp: nowSeconds + ASSERTION_SECONDS };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(account.privateKey);
  return `${unsigned}.${base64url(signature)}`;
}
