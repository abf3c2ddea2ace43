import { createHash, createHmac } from 'node:crypto';

/**
 * AWS Signature Version 4, header form, over the exact bytes sent
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html).
 * Only the signing: credentials come from ./credentials.ts.
 */

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials stop working (container, instance metadata). */
  expiresAt?: number;
}

export interface SignInput {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer | string;
  region: string;
  service: string;
  credentials: AwsCredentials;
  now: Date;
}

const sha256Hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 percent-encoding: every byte but the unreserved characters, upper-case hex. */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The canonical URI of a service other than S3: each segment of the path as sent (already
 * encoded once) encoded again, so `%3A` in a model id signs as `%253A`.
 */
export function canonicalPath(path: string): string {
  return path === '' ? '/' : path.split('/').map(uriEncode).join('/');
}

function canonicalQuery(search: string): string {
  if (search.length <= 1) return '';
  const pairs = search
    .slice(1)
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      const value = equals === -1 ? '' : pair.slice(equals + 1);
      return [uriEncode(decodeURIComponent(name)), uriEncode(decodeURIComponent(value))] as const;
    });
  pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

/** `20150830T123600Z` */
export const amzDate = (now: Date): string => now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** The pieces a signature is made of, for a verifier (test/fakes/bedrock-upstream.ts) to recompute. */
export function canonicalRequest(method: string, url: URL, headers: Record<string, string>, signedHeaders: string[], payloadHash: string): string {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${(lower[name] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  return [method, canonicalPath(url.pathname), canonicalQuery(url.search), canonicalHeaders, signedHeaders.join(';'), payloadHash].join('\n');
}

export function signature(secretAccessKey: string, date: string, region: string, service: string, stringToSign: string): string {
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date.slice(0, 8)), region), service), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
}

export const stringToSign = (date: string, scope: string, canonical: string): string => ['AWS4-HMAC-SHA256', date, scope, sha256Hex(canonical)].join('\n');

/**
 * The headers to add to a request so AWS accepts it: x-amz-date, x-amz-content-sha256, the
 * session token when there is one, and the Authorization carrying the signature. Signed: host,
 * content-type when present, and every x-amz-* header.
 */
export function signRequest(input: SignInput): Record<string, string> {
  const url = new URL(input.url);
  const date = amzDate(input.now);
  const payloadHash = sha256Hex(input.body);
  const added: Record<string, string> = { 'x-amz-date': date, 'x-amz-content-sha256': payloadHash };
  if (input.credentials.sessionToken) added['x-amz-security-token'] = input.credentials.sessionToken;
  const all: Record<string, string> = { host: url.host };
  for (const [name, value] of Object.entries({ ...input.headers, ...added })) all[name.toLowerCase()] = value;
  const signed = Object.keys(all)
    .filter((name) => name === 'host' || name === 'content-type' || name.startsWith('x-amz-'))
    .sort();
  const scope = `${date.slice(0, 8)}/${input.region}/${input.service}/aws4_request`;
  const toSign = stringToSign(date, scope, canonicalRequest(input.method, url, all, signed, payloadHash));
  const sig = signature(input.credentials.secretAccessKey, date, input.region, input.service, toSign);
  added.authorization = `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signed.join(';')}, Signature=${sig}`;
  return added;
}
