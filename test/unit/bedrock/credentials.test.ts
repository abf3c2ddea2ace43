import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveAwsCredentials } from '../../../src/backends/bedrock/credentials.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** No shared files: a fresh directory, so the machine's own ~/.aws is never read. */
function noFiles(): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'aws-none-'));
  return { AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'), AWS_CONFIG_FILE: join(dir, 'config'), AWS_EC2_METADATA_DISABLED: 'true' };
}

const TEMPORARY = { AccessKeyId: 'ASIATEMP', SecretAccessKey: 'temp-secret-0123456789', Token: 'temp-token-0123456789', Expiration: new Date(Date.now() + 3_600_000).toISOString() };

async function serve(handle: http.RequestListener): Promise<string> {
  const server = http.createServer(handle).listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('AWS credential sources', () => {
  it('reads the environment before the default profile', async () => {
    const env: NodeJS.ProcessEnv = { ...noFiles(), AWS_ACCESS_KEY_ID: 'AKIDENV', AWS_SECRET_ACCESS_KEY: 'env-secret', AWS_SESSION_TOKEN: 'env-token' };
    writeFileSync(env.AWS_SHARED_CREDENTIALS_FILE!, '[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = file-secret\n');
    expect(await resolveAwsCredentials({ backend: 'aws', env })).toEqual({ accessKeyId: 'AKIDENV', secretAccessKey: 'env-secret', sessionToken: 'env-token' });
    delete env.AWS_ACCESS_KEY_ID;
    expect(await resolveAwsCredentials({ backend: 'aws', env })).toEqual({ accessKeyId: 'AKIDFILE', secretAccessKey: 'file-secret' });
  });

  it("takes a named profile's keys from the config file too, and refuses a role profile by name", async () => {
    const env = noFiles();
    writeFileSync(env.AWS_CONFIG_FILE!, '[profile dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = dev-secret\n\n[profile role]\nrole_arn = arn:aws:iam::123456789012:role/x\nsource_profile = dev\n');
    expect(await resolveAwsCredentials({ backend: 'aws', env, profile: 'dev' })).toEqual({ accessKeyId: 'AKIDDEV', secretAccessKey: 'dev-secret' });
    await expect(resolveAwsCredentials({ backend: 'aws', env, profile: 'role' })).rejects.toThrow(/profile 'role' uses role_arn/);
    await expect(resolveAwsCredentials({ backend: 'aws', env, profile: 'missing' })).rejects.toThrow(/'missing' is in neither/);
  });

  it('asks the container endpoint with its authorization token', async () => {
    let authorization: string | undefined;
    const url = await serve((req, res) => {
      authorization = req.headers.authorization;
      res.end(JSON.stringify(TEMPORARY));
    });
    const env = { ...noFiles(), AWS_CONTAINER_CREDENTIALS_FULL_URI: `${url}/creds`, AWS_CONTAINER_AUTHORIZATION_TOKEN: 'container-token' };
    expect(await resolveAwsCredentials({ backend: 'aws', env })).toMatchObject({ accessKeyId: 'ASIATEMP', secretAccessKey: 'temp-secret-0123456789', sessionToken: 'temp-token-0123456789' });
    expect(authorization).toBe('container-token');
  });

  it('asks instance metadata with an IMDSv2 session token', async () => {
    const seen: string[] = [];
    const url = await serve((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers['x-aws-ec2-metadata-token'] ?? req.headers['x-aws-ec2-metadata-token-ttl-seconds'] ?? ''}`);
      if (req.method === 'PUT' && req.url === '/latest/api/token') return void res.end('imds-session');
      if (req.headers['x-aws-ec2-metadata-token'] !== 'imds-session') return void res.writeHead(401).end();
      if (req.url === '/latest/meta-data/iam/security-credentials/') return void res.end('my-role');
      if (req.url === '/latest/meta-data/iam/security-credentials/my-role') return void res.end(JSON.stringify(TEMPORARY));
      res.writeHead(404).end();
    });
    const env = { ...noFiles(), AWS_EC2_METADATA_DISABLED: 'false', AWS_EC2_METADATA_SERVICE_ENDPOINT: url };
    expect(await resolveAwsCredentials({ backend: 'aws', env })).toMatchObject({ accessKeyId: 'ASIATEMP', sessionToken: 'temp-token-0123456789' });
    expect(seen).toEqual(['PUT /latest/api/token 21600', 'GET /latest/meta-data/iam/security-credentials/ imds-session', 'GET /latest/meta-data/iam/security-credentials/my-role imds-session']);
  });

  it('says where credentials may come from when no source has any', async () => {
    await expect(resolveAwsCredentials({ backend: 'aws', env: noFiles() })).rejects.toThrow(/Backend 'aws' has no AWS credentials: none is set\. Set AWS_ACCESS_KEY_ID/);
  });
});
