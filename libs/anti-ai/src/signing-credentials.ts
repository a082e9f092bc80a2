import type { X509Certificate as PeculiarCertificate } from '@peculiar/x509';
import { createPrivateKey, KeyObject, X509Certificate } from 'node:crypto';

/** COSE algorithms the signer supports, by key type (C2PA allows these among others). */
export type C2paAlgorithm = 'es256' | 'es384' | 'ed25519';

/**
 * The service's C2PA signing identity: the certificate chain (leaf first, as PEM) and its private key.
 * `trustAnchorPem` is the root a reader must trust for the manifest to show as trusted (tests and
 * local runs configure the development root; production uses a certificate from a C2PA-trusted CA).
 */
export interface SigningCredentials {
  certificateChainPem: string;
  privateKeyPem: string;
  trustAnchorPem?: string;
}

export interface LoadedSigningCredentials {
  chainDer: Buffer[];
  privateKey: KeyObject;
  algorithm: C2paAlgorithm;
  trustAnchorPem?: string;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Parses and checks the credentials: the key must match the leaf certificate. Throws with a plain message. */
export function loadSigningCredentials(credentials: SigningCredentials): LoadedSigningCredentials {
  const pems = credentials.certificateChainPem.match(PEM_CERTIFICATE) ?? [];
  if (pems.length === 0) {
    throw new Error('the C2PA certificate chain holds no PEM certificate');
  }
  const chain = pems.map((pem) => new X509Certificate(pem));
  const privateKey = createPrivateKey(credentials.privateKeyPem);
  if (!chain[0].checkPrivateKey(privateKey)) {
    throw new Error('the C2PA private key does not belong to the first certificate of the chain');
  }
  return { chainDer: chain.map((certificate) => certificate.raw), privateKey, algorithm: algorithmOf(privateKey), trustAnchorPem: credentials.trustAnchorPem };
}

function algorithmOf(key: KeyObject): C2paAlgorithm {
  if (key.asymmetricKeyType === 'ed25519') {
    return 'ed25519';
  }
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') {
      return 'es256';
    }
    if (curve === 'secp384r1') {
      return 'es384';
    }
  }
  throw new Error('the C2PA private key must be EC P-256, EC P-384 or Ed25519');
}

/**
 * A development root and a signing certificate under it (valid a year), made with the WebCrypto API and
 * @peculiar/x509. The leaf has the C2PA certificate profile: not a CA, digitalSignature, an email-protection
 * extended key usage, key identifiers. For local runs and tests only: readers do not trust this root unless told.
 */
export async function generateDevelopmentCredentials(commonName = 'Content Protection development signer'): Promise<SigningCredentials> {
  // Loaded only here: the decorator-based library needs reflect-metadata, which the services load anyway.
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  const { webcrypto } = await import('node:crypto');
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const usages: KeyUsage[] = ['sign', 'verify'];
  const rootKeys = (await webcrypto.subtle.generateKey(algorithm, true, usages));
  const leafKeys = (await webcrypto.subtle.generateKey(algorithm, true, usages));
  const notBefore = new Date(Date.now() - 24 * 3600_000);
  const notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  const root: PeculiarCertificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: 'CN=Content Protection development root,O=Content Protection (development)',
    notBefore,
    notAfter,
    keys: rootKeys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: `CN=${commonName},O=Content Protection (development)`,
    issuer: root.subject,
    notBefore,
    notAfter,
    signingKey: rootKeys.privateKey,
    publicKey: leafKeys.publicKey,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection], false),
      await x509.AuthorityKeyIdentifierExtension.create(root, false),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
    ],
  });
  const privateKeyPem = KeyObject.from(leafKeys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  return {
    certificateChainPem: `${leaf.toString('pem')}\n${root.toString('pem')}\n`,
    privateKeyPem,
    trustAnchorPem: `${root.toString('pem')}\n`,
  };
}

function randomSerial(): string {
  // Positive, non-zero, 16 hex digits.
  return `1${Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(8))).toString('hex').slice(1)}`;
}
