// Jest environment for specs that use onnxruntime-node: its native binding creates typed arrays of Node's own
// realm, and onnxruntime-common checks them against the test sandbox's constructors. Sharing Node's typed-array
// constructors with the sandbox makes both sides agree.
const { TestEnvironment } = require('jest-environment-node');

class NativeTypedArraysEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of ['Float32Array', 'Float64Array', 'Int8Array', 'Uint8Array', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array', 'Uint8ClampedArray']) {
      this.global[name] = globalThis[name];
    }
  }
}

module.exports = NativeTypedArraysEnvironment;
