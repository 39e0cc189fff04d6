/**
 * Autofill of a plan's open slots, over plain values (the repository gathers them):
 * - a position gets at most `count - already assigned` new people;
 * - nobody blocked out on the service date, and nobody serving anywhere else that day (any plan of the church,
 *   this one included), so nobody is booked twice on one day;
 * - the even spread: candidates with the fewest assignments in the recent window go first; ties keep the
 *   order the coordinator listed them in, so the same input always gives the same answer.
 */
export interface AutofillPosition {
  id: string;
  count: number;
  /** people already assigned to this position */
  assigned: string[];
}

export interface AutofillInput {
  /** positions in the order their teams were given, each with its candidates in the order given */
  teams: Array<{ position: AutofillPosition; personIds: string[] }>;
  /** people who cannot serve that day (blockouts) */
  blockedOut: Set<string>;
  /** people already serving somewhere that day */
  busy: Set<string>;
  /** assignments per person in the recent window */
  recent: Map<string, number>;
}

export interface AutofillPick {
  positionId: string;
  personId: string;
}

export function autofill(input: AutofillInput): AutofillPick[] {
  const picks: AutofillPick[] = [];
  const busy = new Set(input.busy);
  const load = new Map(input.recent);
  for (const { position, personIds } of input.teams) {
    let open = position.count - position.assigned.length;
    if (open <= 0) continue;
    const listed = [...new Set(personIds)];
    const rank = new Map(listed.map((id, i) => [id, i]));
    const candidates = listed
      .filter((id) => !busy.has(id) && !input.blockedOut.has(id))
      .sort((a, b) => (load.get(a) ?? 0) - (load.get(b) ?? 0) || rank.get(a)! - rank.get(b)!);
    for (const personId of candidates) {
      if (open <= 0) break;
      picks.push({ positionId: position.id, personId });
      busy.add(personId);
      load.set(personId, (load.get(personId) ?? 0) + 1);
      open--;
    }
  }
  return picks;
}
