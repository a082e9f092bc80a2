export { encodeSdMark } from './sd-mark.encoder';
export { tinyOnnxModel } from './tiny-onnx-model';
export { syntheticPhoto } from './synthetic-photo';
export { withPngTextChunk } from './png-text-chunk';
