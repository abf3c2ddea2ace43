import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import type { ServerSettings, TlsFiles } from '../config/settings.js';
import { usageError } from './cli-error.js';

/** A certificate and key, read and checked to belong together, ready for node:https. */
export interface TlsIdentity {
  files: TlsFiles;
  cert: Buffer;
  key: Buffer;
}

/**
 * The certificate and key serve uses: the flags when given (both or neither), else the config's
 * `server.tls`. Each file is read and the pair is checked now, so a wrong path or a key that does
 * not match the certificate is a usage error naming the file, not a failed handshake later.
 */
export function loadTlsIdentity(flags: { tlsCert?: string; tlsKey?: string }, server: Pick<ServerSettings, 'tls'>): TlsIdentity | undefined {
  const given = flags.tlsCert !== undefined || flags.tlsKey !== undefined;
  if (given && (flags.tlsCert === undefined || flags.tlsKey === undefined)) {
    throw usageError(`--tls-cert and --tls-key go together: ${flags.tlsCert === undefined ? '--tls-cert' : '--tls-key'} is missing`);
  }
  const files = given ? { cert: flags.tlsCert!, key: flags.tlsKey! } : configuredTls(server);
  if (!files) return undefined;
  const where = given ? { cert: '--tls-cert', key: '--tls-key' } : { cert: 'server.tls.cert', key: 'server.tls.key' };
  const cert = readPem(files.cert, where.cert, 'CERTIFICATE');
  const key = readPem(files.key, where.key, 'PRIVATE KEY');
  try {
    tls.createSecureContext({ cert, key });
  } catch (error) {
    throw usageError(`${where.cert} ${files.cert} and ${where.key} ${files.key} cannot serve TLS together: ${(error as Error).message}`);
  }
  return { files: { cert: path.resolve(files.cert), key: path.resolve(files.key) }, cert, key };
}

/** The config's `server.tls`, when both paths are set (a hand-edited half is refused by serve). */
function configuredTls(server: Pick<ServerSettings, 'tls'>): TlsFiles | undefined {
  const tlsFiles = server.tls;
  if (tlsFiles === undefined || tlsFiles === null) return undefined;
  if (typeof tlsFiles.cert !== 'string' || typeof tlsFiles.key !== 'string' || !tlsFiles.cert || !tlsFiles.key) {
    throw usageError('config server.tls needs both cert and key file paths: svc-router config set server.tls.cert FILE and server.tls.key FILE');
  }
  return tlsFiles;
}

/** The scheme clients use for a server with these settings. */
export const schemeOf = (server: Pick<ServerSettings, 'tls'>): 'http' | 'https' => (server.tls?.cert && server.tls?.key ? 'https' : 'http');

function readPem(file: string, name: string, label: string): Buffer {
  let text: Buffer;
  try {
    text = fs.readFileSync(file);
  } catch (error) {
    throw usageError(`${name}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  // "BEGIN CERTIFICATE", and "BEGIN PRIVATE KEY" / "BEGIN RSA PRIVATE KEY" / "BEGIN EC PRIVATE KEY".
  if (!new RegExp(`-----BEGIN [A-Z ]*${label}-----`).test(text.toString('latin1'))) {
    throw usageError(`${name}: ${file} holds no PEM ${label.toLowerCase()} (a "-----BEGIN ${label}-----" block)`);
  }
  return text;
}

/** OpenSSL's and Node's codes for a certificate the client does not trust or that names another host. */
const UNTRUSTED_CERT = /\b(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID)\b/;

/** The fix for a connection refused over the router's certificate, when the failure is that. */
export function untrustedCertRemedy(detail: string): string | undefined {
  if (!UNTRUSTED_CERT.test(detail)) return undefined;
  if (/ALTNAME/.test(detail)) return "The router's certificate does not name this host: dial a name or address in its subjectAltName, or reissue it with this one.";
  return "This machine does not trust the router's certificate: give Node the CA that signed it (export NODE_EXTRA_CA_CERTS=/path/to/ca.pem), or serve a certificate from a CA the system trusts.";
}
