import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { canonicalPath, canonicalRequest, signature, signRequest, stringToSign } from '../../../src/backends/bedrock/sigv4.js';

describe('SigV4 signing', () => {
  // AWS's Signature Version 4 test suite, get-vanilla: its published credentials, time and signature.
  it('computes the get-vanilla signature the AWS test suite publishes', () => {
    const empty = createHash('sha256').update('').digest('hex');
    const canonical = canonicalRequest('GET', new URL('https://example.amazonaws.com/'), { host: 'example.amazonaws.com', 'x-amz-date': '20150830T123600Z' }, ['host', 'x-amz-date'], empty);
    const toSign = stringToSign('20150830T123600Z', '20150830/us-east-1/service/aws4_request', canonical);
    expect(signature('wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', '20150830T123600Z', 'us-east-1', 'service', toSign)).toBe('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
  });

  it('signs host, content-type and every x-amz header, with the session token', () => {
    const headers = signRequest({
      method: 'GET',
      url: 'https://example.amazonaws.com/',
      headers: {},
      body: '',
      region: 'us-east-1',
      service: 'service',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'TOKEN' },
      now: new Date('2015-08-30T12:36:00Z'),
    });
    expect(headers['x-amz-security-token']).toBe('TOKEN');
    expect(headers['x-amz-date']).toBe('20150830T123600Z');
    expect(headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20150830\/us-east-1\/service\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/);
  });

  it('encodes each path segment again, as AWS does for services other than S3', () => {
    expect(canonicalPath('/model/anthropic.claude-v2%3A1/invoke')).toBe('/model/anthropic.claude-v2%253A1/invoke');
  });
});
