import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface LoopbackTlsCertificate {
  /** PEM file of the self-signed certificate: the CA file a client under test trusts. */
  certFile: string;
  key: Buffer;
  cert: Buffer;
}

/** A one-day self-signed certificate for an HTTPS test server on 127.0.0.1 (made with openssl), in `dir` (a new temporary folder by default). */
export function loopbackTlsCertificate(dir: string = mkdtempSync(path.join(tmpdir(), 'test-tls-'))): LoopbackTlsCertificate {
  mkdirSync(dir, { recursive: true });
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  return { certFile, key: readFileSync(keyFile), cert: readFileSync(certFile) };
}
