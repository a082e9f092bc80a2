/**
 * Builds a few-hundred-byte ONNX model for tests: input `image` [1,3,S,S] → ReduceMean over everything → Sigmoid →
 * output `score` [1,1,1,1]. Bright patches (normalised towards +1) score about 0.73, dark ones about 0.27, which
 * lets tests check the patch-wise inference and the heatmap. Written with a minimal protobuf encoder (the ONNX
 * file format is a protobuf `ModelProto`).
 */
function varint(value: number): number[] {
  const out: number[] = [];
  let v = value;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

function field(number: number, value: number | string | number[]): number[] {
  if (typeof value === 'number') return [...varint(number << 3), ...varint(value)];
  const bytes = typeof value === 'string' ? [...Buffer.from(value, 'utf8')] : value;
  return [...varint((number << 3) | 2), ...varint(bytes.length), ...bytes];
}

function tensorValueInfo(name: string, dims: number[]): number[] {
  const shape = dims.flatMap((d) => field(1, field(1, d)));
  const tensorType = [...field(1, 1), ...field(2, shape)]; // elem_type FLOAT, shape
  return [...field(1, name), ...field(2, field(1, tensorType))];
}

export function tinyOnnxModel(inputSize: number): Buffer {
  const reduce = [...field(1, 'image'), ...field(2, 'mean'), ...field(3, 'reduce'), ...field(4, 'ReduceMean')];
  const sigmoid = [...field(1, 'mean'), ...field(2, 'score'), ...field(3, 'sigmoid'), ...field(4, 'Sigmoid')];
  const graph = [
    ...field(1, reduce),
    ...field(1, sigmoid),
    ...field(2, 'tiny-brightness'),
    ...field(11, tensorValueInfo('image', [1, 3, inputSize, inputSize])),
    ...field(12, tensorValueInfo('score', [1, 1, 1, 1])),
  ];
  const model = [...field(1, 8), ...field(2, 'cp-tests'), ...field(7, graph), ...field(8, [...field(1, ''), ...field(2, 13)])];
  return Buffer.from(model);
}
