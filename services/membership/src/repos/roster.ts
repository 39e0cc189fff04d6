import { and, asc, eq } from 'drizzle-orm';
import { rowsOf, type DbOrTx } from '@church/common';
import { groupMembers, groups, people } from '../db/schema';

// A group's roster for attendance's signed internal call (the session sheet): the few columns it needs, read
// as the driver returns them, because a big group has hundreds of members and per-field mapping of wide joined
// rows cost more than the query.

export interface RosterRow {
  personId: string;
  displayName: string | null;
  firstName: string | null;
  lastName: string | null;
  photo: string | null;
  leader: boolean;
}

/** The live people of a live group of the church, by last then first name; empty for another church's group. */
export async function groupRoster(db: DbOrTx, churchId: string, groupId: string): Promise<RosterRow[]> {
  const query = db
    .select({
      personId: groupMembers.personId,
      displayName: people.displayName,
      firstName: people.firstName,
      lastName: people.lastName,
      photo: people.photo,
      leader: groupMembers.leader,
    })
    .from(groupMembers)
    .innerJoin(people, and(eq(people.churchId, churchId), eq(people.id, groupMembers.personId), eq(people.removed, false)))
    .innerJoin(groups, and(eq(groups.churchId, churchId), eq(groups.id, groupMembers.groupId), eq(groups.removed, false)))
    .where(and(eq(groupMembers.churchId, churchId), eq(groupMembers.groupId, groupId)))
    .orderBy(asc(people.lastName), asc(people.firstName));
  type Raw = { person_id: string; display_name: string | null; first_name: string | null; last_name: string | null; photo: string | null; leader: boolean };
  return rowsOf<Raw>(await db.execute(query)).map((r) => ({
    personId: r.person_id,
    displayName: r.display_name,
    firstName: r.first_name,
    lastName: r.last_name,
    photo: r.photo,
    leader: r.leader,
  }));
}
