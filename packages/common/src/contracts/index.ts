/**
 * What one module serves others: its signed internal routes (`callInternal`) and the jobs it owns and others
 * enqueue. The owner registers each job's handler (`handle(contract, ...)` in its `jobs`) and lists the contract in
 * its definition's `owns`; anyone enqueues it with `deps.queue.enqueue`. One file per owning module.
 */
export * from './call';
export * from './membership';
export * from './attendance';
export * from './giving';
export * from './messaging';
export * from './content';
export * from './doing';
export * from './gdpr';

import type { InternalContract } from './call';
import { attendanceInternal } from './attendance';
import { contentInternal } from './content';
import { doingInternal } from './doing';
import { GDPR_MODULES, gdprAnonymize, gdprExport } from './gdpr';
import { givingInternal } from './giving';
import { membershipInternal } from './membership';
import { messagingInternal } from './messaging';

/** Every internal route of every module, by `<module> <path>`: what the test fakes check their answers against. */
export const INTERNAL_CONTRACTS: ReadonlyMap<string, InternalContract> = new Map(
  [
    ...Object.values(membershipInternal),
    ...Object.values(attendanceInternal),
    ...Object.values(givingInternal),
    ...Object.values(contentInternal),
    ...Object.values(doingInternal),
    ...Object.values(messagingInternal),
    ...GDPR_MODULES.flatMap((m) => [gdprExport(m), gdprAnonymize(m)]),
  ].map((c) => [`${c.module} ${c.path}`, c as InternalContract]),
);
