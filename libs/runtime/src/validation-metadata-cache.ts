import { getMetadataStorage, MetadataStorage } from 'class-validator';

type Lookup = MetadataStorage['getTargetValidationMetadatas'];

const cachedStorages = new WeakSet<MetadataStorage>();

/**
 * Serves class-validator's per-class rule lookup from a cache. class-validator finds a class's inherited rules by
 * testing every decorated class of the process on each validation (typestack/class-validator#2686, open): with the
 * contracts' DTOs that lookup was 3–4% of the gateway's, orders' and uploads' CPU under creation load (issue 19).
 * Safe because a class's own and inherited rules are all registered when its module loads, before it can be
 * validated; a class loaded later registers only its own rules. Keyed by class (weakly) and by the call's options.
 */
export function cacheValidationMetadata(storage: MetadataStorage = getMetadataStorage()): void {
  if (cachedStorages.has(storage)) {
    return;
  }
  cachedStorages.add(storage);
  const lookup: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- class-validator's own key type
  const cache = new WeakMap<Function, Map<string, ReturnType<Lookup>>>();
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    let byOptions = cache.get(target);
    if (!byOptions) {
      byOptions = new Map();
      cache.set(target, byOptions);
    }
    const key = groups?.length ? JSON.stringify([schema, always, strictGroups, groups]) : `${schema}|${always}|${strictGroups}`;
    let found = byOptions.get(key);
    if (!found) {
      found = lookup(target, schema, always, strictGroups, groups);
      byOptions.set(key, found);
    }
    return found;
  };
}
