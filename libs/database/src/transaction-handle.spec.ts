// Issue 31: the repository rule in the build. A use case holds a `Transaction` and can only pass it on: the
// `@ts-expect-error` lines below are checked by the type check (`npm run typecheck`), which fails the day a
// handle offers `query`, `find` or `getRepository` again. Only a repository gets the manager back.
import { EntityManager } from 'typeorm';
import { asTransaction, Transaction, TransactionalRepository } from './transaction-handle';

class ProbeRepository extends TransactionalRepository {
  managerOf(tx: Transaction): EntityManager {
    return this.db(tx);
  }
}

describe('Transaction (opaque handle)', () => {
  const manager = { query: () => Promise.resolve([]) } as unknown as EntityManager;
  const tx = asTransaction(manager);

  it('has no database API for a use case', () => {
    // @ts-expect-error a use case cannot query through its transaction
    expect(typeof tx.query).toBe('function');
    // @ts-expect-error nor read entities through it
    expect(typeof tx.find).toBe('undefined');
    // @ts-expect-error nor take a TypeORM repository from it
    expect(typeof tx.getRepository).toBe('undefined');
    // @ts-expect-error nor pass it where TypeORM's manager is expected
    const asManager: EntityManager = tx;
    expect(asManager).toBe(manager);
  });

  it('gives a repository the manager it wraps, and nothing else can reach it', () => {
    expect(new ProbeRepository().managerOf(tx)).toBe(manager);
    // @ts-expect-error `db` is for repositories (subclasses) only
    expect(new ProbeRepository().db(tx)).toBe(manager);
  });
});
