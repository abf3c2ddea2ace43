import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A throwaway certificate authority and a server certificate it signed, as PEM files. */
export interface TestCa {
  dir: string;
  /** The CA's certificate: what a client is told to trust (NODE_EXTRA_CA_CERTS). */
  caCert: string;
  /** The server's certificate, for localhost and 127.0.0.1, signed by the CA. */
  cert: string;
  key: string;
  /** A second key that does not belong to `cert`. */
  otherKey: string;
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  const result = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
}

/** Made fresh with the openssl CLI in a temporary directory; nothing private is ever committed. */
export function makeTestCa(): TestCa {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-ca-'));
  const file = (name: string) => path.join(dir, name);
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=svc-router test CA'], dir);
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  fs.writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext'], dir);
  openssl(['genpkey', '-algorithm', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'other.key'], dir);
  return {
    dir,
    caCert: file('ca.pem'),
    cert: file('server.pem'),
    key: file('server.key'),
    otherKey: file('other.key'),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
