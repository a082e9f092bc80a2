import { ContentCredentialsSigner, generateDevelopmentCredentials, loadSigningCredentials } from '@cp/anti-ai';
import { pngChunk } from '@cp/testing';
import sharp from 'sharp';

/** IPTC digital source type vocabulary (the terms C2PA actions use). */
export const IPTC_SOURCE_TYPE = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

let signer: Promise<ContentCredentialsSigner> | null = null;

/** One development signer per process: a self-made root that readers do not trust unless told. */
function developmentSigner(): Promise<ContentCredentialsSigner> {
  signer ??= generateDevelopmentCredentials('AI detection test signer').then((credentials) => new ContentCredentialsSigner(loadSigningCredentials(credentials)));
  return signer;
}

/**
 * A real signed C2PA manifest (c2pa-rs through @contentauth/c2pa-wasm) whose `c2pa.created` action declares
 * `sourceType` (e.g. `trainedAlgorithmicMedia`, `digitalCapture`), as a generator or a camera would write it.
 */
export async function withContentCredentials(png: Buffer, sourceType: string, generator = 'Example Image Generator'): Promise<Buffer> {
  return (await developmentSigner()).sign(png, 'png', {
    title: 'image.png',
    claimGenerator: generator,
    origin: 'created',
    actions: [{ action: 'c2pa.created', digitalSourceType: `${IPTC_SOURCE_TYPE}${sourceType}` }],
  });
}

/**
 * The signed PNG's manifest, byte for byte, spliced into a copy whose pixels were changed (one pixel
 * inverted, re-encoded): what an edit after signing looks like. Validation must fail on the data hash.
 */
export async function tamperedAfterSigning(signedPng: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(signedPng).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  data[0] = 255 - data[0];
  const changed = await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } }).png().toBuffer();
  // 33 bytes: the PNG signature and the IHDR chunk; the manifest chunk (caBX) goes right after, as c2pa writes it.
  return Buffer.concat([changed.subarray(0, 33), pngChunk(signedPng, 'caBX'), changed.subarray(33)]);
}
