import { PDFName, PDFRef } from 'pdf-lib';

/**
 * pdf-lib interns every name and every reference it makes (`PDFName.of`, `PDFRef.of`) in a module-private Map that
 * is never emptied, so that the same name is the same object (dictionaries are Maps keyed by it). In a service that
 * parses files from anyone, that is a leak for the life of the process: a 343 KB PDF of 130,000 distinct names kept
 * 231 MiB of heap after it was refused, and each new file adds its own.
 *
 * The pools are made weak: an entry lives while something else holds its object (a parsed document's dictionary, a
 * module's constant), which is all identity needs (nothing can compare against an object nobody holds); then it is
 * dropped. The Maps are private, so each is found once, by probing its `of` with a key nothing else asks for while
 * `Map.prototype.get` is watched (synchronously: no other code runs in between); its own `get` and `set` are then
 * replaced on that one Map. The entries made before (pdf-lib's constants) stay as they are.
 */
interface Pool {
  get(key: string): object | undefined;
  set(key: string, value: object): unknown;
}

function findPool(probeKey: string, probe: () => void): Pool | undefined {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called back with the Map as `this`
  const get = Map.prototype.get;
  let found: Pool | undefined;
  // only for the probe below, restored before anything else runs
  Map.prototype.get = function watchedGet(this: Map<unknown, unknown>, key: unknown) {
    if (key === probeKey) found = this as unknown as Pool;
    return get.call(this, key) as unknown;
  };
  try {
    probe();
  } finally {
    Map.prototype.get = get;
  }
  return found;
}

function makeWeak(pool: Pool): void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the pool as `this`
  const strongGet = Map.prototype.get;
  const weak = new Map<string, WeakRef<object>>();
  const registry = new FinalizationRegistry<string>((key) => {
    // the key may have been made again since: only a dead entry goes
    if (weak.get(key)?.deref() === undefined) weak.delete(key);
  });
  Object.defineProperties(pool, {
    get: { value: (key: string): object | undefined => weak.get(key)?.deref() ?? (strongGet.call(pool, key) as object | undefined) },
    set: {
      value: (key: string, value: object): Pool => {
        weak.set(key, new WeakRef(value));
        registry.register(value, key);
        return pool;
      },
    },
  });
}

const NAME_PROBE = 'cp-watermark-pdf-weak-pool-probe';
const REF_PROBE = [2 ** 31 - 2, 65_534] as const;

/** Whether both pools were found and made weak (false: pdf-lib changed; a test fails). */
export const weakPools = ((): boolean => {
  const names = findPool(NAME_PROBE, () => PDFName.of(NAME_PROBE));
  const refs = findPool(`${REF_PROBE[0]} ${REF_PROBE[1]} R`, () => PDFRef.of(REF_PROBE[0], REF_PROBE[1]));
  if (names) makeWeak(names);
  if (refs) makeWeak(refs);
  return names !== undefined && refs !== undefined;
})();
