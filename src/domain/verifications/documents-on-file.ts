import type { UnitOfWork } from '../../store/unit-of-work.js';

/**
 * The port a verification reads documents through: for each holder (a customer or a beneficial
 * owner of the platform), the document types it has on file. A holder with none may be absent.
 */
export type DocumentsOnFile = (uow: UnitOfWork, platformId: string, holderIds: readonly string[]) => Promise<ReadonlyMap<string, ReadonlySet<string>>>;

