import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where the trust lists come from. Unset paths use the dated snapshots shipped in `libs/ai-detection/trust/`
 * (SOURCES.json names each one's repository, commit, date and SHA-256); an operator replaces any of them with a
 * newer file without a release.
 */
export interface C2paTrustConfig {
  /** C2PA Trust List: anchors of claim-signing certificates (PEM). */
  trustListPath?: string;
  /** C2PA TSA Trust List: anchors of time-stamping authorities (PEM). */
  tsaTrustListPath?: string;
  /** The frozen interim list of the Content Authenticity verify site (anchors, allowed end entities); false: not read. */
  interim?: boolean;
  interimAnchorsPath?: string;
  interimAllowedPath?: string;
}

export interface TrustListSource {
  file: string;
  sha256: string;
  certificates: number;
}

/** c2pa-rs reader settings ("context" JSON) for one read, and what they were built from. */
export interface C2paTrustSettings {
  /** Validation against the C2PA Trust List and TSA Trust List. */
  official: string;
  /** Validation against the frozen interim list, reported apart (null when switched off). */
  interim: string | null;
  sources: TrustListSource[];
}

export const TRUST_SNAPSHOT_DIR = join(__dirname, '..', '..', 'trust');

/**
 * Extended key usages accepted for end-entity certificates (c2pa-rs `trust_config`): the C2PA claim-signing OID,
 * document signing, e-mail protection (older signers), time stamping and OCSP signing; the same set the interim
 * list's store.cfg states.
 */
const ACCEPTED_EKUS = ['1.3.6.1.4.1.62558.2.1', '1.3.6.1.5.5.7.3.36', '1.3.6.1.5.5.7.3.4', '1.3.6.1.5.5.7.3.8', '1.3.6.1.5.5.7.3.9', '1.3.6.1.4.1.311.76.59.1.9'];

/**
 * Nothing is fetched while validating: a file can name a remote manifest or an OCSP responder, and following either
 * would let an uploaded file make the detector connect where its author chooses (the reader process has no `fetch`
 * besides). Trust is checked (`verify_trust`) for the signer and the time stamp.
 */
const VERIFY = { ocsp_fetch: false, remote_manifest_fetch: false, verify_trust: true, verify_timestamp_trust: true };

const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function readList(path: string): { pem: string; source: TrustListSource } {
  const bytes = readFileSync(path);
  const pem = (bytes.toString('utf8').match(CERTIFICATE) ?? []).join('\n');
  const certificates = pem === '' ? 0 : pem.split('-----BEGIN CERTIFICATE-----').length - 1;
  // An empty or unreadable list would trust nothing silently: refuse to start instead.
  if (certificates === 0) throw new Error(`the trust list ${path} holds no PEM certificate`);
  return { pem: `${pem}\n`, source: { file: path, sha256: createHash('sha256').update(bytes).digest('hex'), certificates } };
}

export function loadC2paTrust(config: C2paTrustConfig = {}): C2paTrustSettings {
  const snapshot = (name: string): string => join(TRUST_SNAPSHOT_DIR, name);
  const claimSigning = readList(config.trustListPath ?? snapshot('c2pa-trust-list.pem'));
  const timeStamping = readList(config.tsaTrustListPath ?? snapshot('c2pa-tsa-trust-list.pem'));
  const trustConfig = ACCEPTED_EKUS.join('\n');
  const official = JSON.stringify({ verify: VERIFY, trust: { trust_anchors: claimSigning.pem + timeStamping.pem, trust_config: trustConfig } });
  const sources = [claimSigning.source, timeStamping.source];
  if (config.interim === false) return { official, interim: null, sources };
  const anchors = readList(config.interimAnchorsPath ?? snapshot('interim-anchors.pem'));
  const allowed = readList(config.interimAllowedPath ?? snapshot('interim-allowed.pem'));
  const interim = JSON.stringify({ verify: VERIFY, trust: { trust_anchors: anchors.pem + timeStamping.pem, allowed_list: allowed.pem, trust_config: trustConfig } });
  return { official, interim, sources: [...sources, anchors.source, allowed.source] };
}
