import { hasPermission } from '@church/auth';
import { HttpError, cardNote, type personFieldChange } from '@church/common';
import type { z } from 'zod';
import type { MembershipDeps } from '../deps';
import { existingPeople } from '../repos/groups';
import { claimsNow } from './login';
import { PersonSave } from './people/person';
import { personReferenceErrors, savePeople } from './people/save';

/** The fields a `setField` action may set: those the person-edit route (`POST /people`) takes, one value each. */
const Change = PersonSave.omit({ id: true, name: true, contactInfo: true });
const FIELDS = new Set(Object.keys(Change.shape));

/**
 * `membership.personFieldChange` (doing's `setField` step action): sets one field of a person of the church, only
 * while the user who configured the action holds People.Edit there now (their roles read again, as a login token
 * would be built), validated as `POST /people` validates it. What happened is told to the card (`doing.cardNote`)
 * in the same transaction as the change, so the note exists exactly when the change does. Answers the note.
 */
export async function changePersonField(deps: MembershipDeps, job: z.output<typeof personFieldChange.schema>): Promise<string> {
  const { churchId, personId, field, value, configuredBy, cardId } = job;
  const parsed = FIELDS.has(field) ? Change.pick({ [field]: true } as Partial<Record<keyof typeof Change.shape, true>>).safeParse({ [field]: value }) : undefined;
  // The household or campus the value names is the church's: asked (attendance for a campus) before the transaction.
  const foreign = parsed?.success ? await personReferenceErrors(deps.db, deps.internal, churchId, [parsed.data]) : [];
  return deps.db.transaction(async (tx) => {
    const note = await (async () => {
      const by = configuredBy.userId ? await claimsNow(tx, configuredBy.userId, churchId) : undefined;
      if (!by || !hasPermission({ ...by.claims, iat: 0, exp: 0 }, 'People.Edit')) {
        const who = by ? [by.user.firstName, by.user.lastName].filter(Boolean).join(' ') || by.user.email : 'the user who configured it';
        return `Field change refused: ${who} may not edit people`;
      }
      if (!(await existingPeople(tx, churchId, [personId])).has(personId)) return 'Field change skipped: person not found';
      if (!parsed) return `Field change refused: ${field} is not a field of a person`;
      if (!parsed.success) return `Field change refused: ${field} ${parsed.error.issues[0]?.message ?? 'is not valid'}`.slice(0, 500);
      if (foreign.length) return `Field change refused: ${foreign[0]!.msg}`.slice(0, 500);
      try {
        await savePeople({ db: tx, storage: deps.storage, churchId, references: 'checked', report: { deps } }, [{ ...parsed.data, id: personId }]);
      } catch (err) {
        // the save's own checks (a photo that is no image) come before it writes
        if (err instanceof HttpError && err.statusCode < 500) return `Field change refused: ${err.errors[0]?.msg ?? field}`.slice(0, 500);
        throw err;
      }
      return `Set ${field}`;
    })();
    if (cardId) await deps.queue.enqueue(cardNote, { churchId, cardId, note }, { tx });
    return note;
  });
}
