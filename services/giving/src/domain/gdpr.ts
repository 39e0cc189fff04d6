import { reportChanges, type Actor } from '@church/common';
import type { GivingDeps } from '../deps';
import { anonymizePerson } from '../repos/gdpr';

/**
 * GDPR anonymize (membership asks; README "GDPR"): a person's details removed from their records in one
 * transaction, reported by id only (the audit log must not keep the details just removed). Answers how many
 * records of each kind changed.
 */
export async function anonymize(deps: Pick<GivingDeps, 'db' | 'queue' | 'module'>, actor: Actor, churchId: string, personId: string): Promise<Record<string, number>> {
  const changed = await deps.db.transaction(async (tx) => {
    const ids = await anonymizePerson(tx, churchId, personId);
    const entityTypes = { donations: 'donation', customers: 'customer', paymentMethods: 'paymentMethod', registrationPayments: 'registrationPayment' } as const;
    const changes = Object.entries(ids).flatMap(([kind, list]) =>
      list.map((entityId) => ({ churchId, entityType: entityTypes[kind as keyof typeof ids], entityId, action: kind === 'paymentMethods' ? 'destroyed' : 'anonymized' })),
    );
    await reportChanges(deps, changes, { req: actor, tx });
    return ids;
  });
  return Object.fromEntries(Object.entries(changed).map(([kind, list]) => [kind, list.length]));
}
