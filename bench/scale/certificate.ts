import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * A self-signed certificate for 127.0.0.1 and localhost, made with openssl in `dir` (a temporary
 * directory: no private key is ever kept). wrk does not verify it; the TLS work is what counts.
 */
export function makeCertificate(dir: string): { cert: string; key: string } {
  const cert = path.join(dir, 'lb.pem');
  const key = path.join(dir, 'lb.key');
  const result = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`openssl could not make a certificate: ${result.stderr}`);
  return { cert, key };
}
