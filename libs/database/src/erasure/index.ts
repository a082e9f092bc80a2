import { ErasedScope1797600000000 } from './1797600000000-ErasedScope';

export { ErasedScopeEntity } from './erased-scope.entity';
export { ErasedScope, ErasedScopesRepository } from './erased-scopes.repository';
export { ErasedScope1797600000000 };

/** The migration of `erased_scope`, for the migration list of each service that records erasures. */
export const ERASED_SCOPE_MIGRATIONS = [ErasedScope1797600000000];
