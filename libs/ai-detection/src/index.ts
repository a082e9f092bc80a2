export * from './ai-detector';
export * from './evidence';
export { C2PA_EVIDENCE_MAX_BYTES, EVIDENCE_MAX_BYTES, fitEvidence, serializedBytes } from './evidence-budget';
export * from './fusion';
export * from './weights';
export * from './heatmap';
export * from './digital-source-type';
export { c2paEvidence, readC2pa, ManifestStore } from './c2pa/c2pa.signal';
export {
  C2PA_READER_SETTINGS,
  C2paReadFailed,
  c2paReaderLimits,
  closeC2paReader,
  configureC2paReader,
  configureC2paTrust,
  DEFAULT_C2PA_READER_LIMITS,
  readManifestStore,
} from './c2pa/c2pa-reader';
export type { C2paReaderLimits, C2paReadResult } from './c2pa/c2pa-reader';
export { loadC2paTrust, TRUST_SNAPSHOT_DIR } from './c2pa/c2pa-trust';
export type { C2paTrustConfig, C2paTrustSettings, TrustListSource } from './c2pa/c2pa-trust';
export { metadataEvidence, MetadataReader } from './metadata/metadata.signal';
export { ClassifierConfig, ClassifierScores, nativePatch, OnnxClassifier, sha256File } from './classifier/onnx-classifier';
export * from './classifier/calibration';
export * from './sd-watermark/sd-watermark';
export { sdMarkSignal } from './sd-watermark/sd-mark.signal';
