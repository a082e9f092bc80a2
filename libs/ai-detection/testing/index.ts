export { encodeSdMark } from './sd-mark.encoder';
export { tinyOnnxModel } from './tiny-onnx-model';
export { syntheticPhoto } from './synthetic-photo';
export { withPngTextChunk } from './png-text-chunk';
export { IPTC_SOURCE_TYPE, tamperedAfterSigning, withContentCredentials } from './c2pa-fixtures';
