/** What one person is told by "Email all" of the serving matrix: their plans in the range, each with their positions. */
export interface PersonSchedule {
  personId: string;
  /** the first plan, for clients that open a notification's content */
  firstPlanId: string;
  message: string;
}

interface Row {
  personId: string | null;
  planId: string;
  planName: string | null;
  serviceDate: string;
  positionName: string;
}

/** The notification's length limit (messaging's notifyPeople contract). */
const MAX_MESSAGE = 2000;

/**
 * One schedule per person who serves in the rows (rows without a person are open slots and tell nobody): their
 * plans by day, a position named once per plan. Written as plain text (`2030-03-10 Sunday: Drums, Keys`), cut
 * at the notification's limit.
 */
export function schedulesByPerson(rows: Row[]): PersonSchedule[] {
  const people = new Map<string, Map<string, { day: string; name: string; positions: Set<string> }>>();
  for (const r of rows) {
    if (!r.personId) continue;
    let planList = people.get(r.personId);
    if (!planList) people.set(r.personId, (planList = new Map()));
    let entry = planList.get(r.planId);
    if (!entry) planList.set(r.planId, (entry = { day: r.serviceDate, name: r.planName ?? 'Plan', positions: new Set() }));
    entry.positions.add(r.positionName);
  }
  return [...people].map(([personId, planList]) => {
    const items = [...planList].sort(([ai, a], [bi, b]) => (a.day < b.day ? -1 : a.day > b.day ? 1 : ai < bi ? -1 : 1));
    const lines = items.map(([, p]) => `${p.day} ${p.name}: ${[...p.positions].join(', ')}`);
    let message = `Your serving schedule: ${lines.join('; ')}`;
    if (message.length > MAX_MESSAGE) message = `${message.slice(0, MAX_MESSAGE - 1)}…`;
    return { personId, firstPlanId: items[0]![0], message };
  });
}
