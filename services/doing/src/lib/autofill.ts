/**
 * Autofill of a plan's open slots, over plain values (the repository gathers them):
 * - a position gets at most `count - already assigned` new people (a position listed twice still gets no more);
 * - nobody blocked out on the service date, and nobody serving anywhere else that day (any plan of the church,
 *   this one included), so nobody is booked twice on one day;
 * - nobody who has reached the most times a month they want to serve (their scheduling preference);
 * - the even spread: candidates with the fewest assignments in the recent window go first; ties keep the
 *   order the coordinator listed them in, so the same input always gives the same answer.
 */
export interface AutofillPosition {
  id: string;
  count: number;
  /** how many people are assigned to this position already */
  assigned: number;
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
  /** for people with a monthly limit, how many more times they may serve in the plan's month */
  monthLeft?: Map<string, number>;
}

export interface AutofillPick {
  positionId: string;
  personId: string;
}

/** What autofill knows of one candidate while it runs (looked up once per person, not once per team). */
interface Candidate {
  id: string;
  load: number;
  /** not blocked out, not serving that day, not picked yet */
  free: boolean;
  /** the team that listed them last (a person listed twice in one team counts once) */
  team: number;
}

export function autofill(input: AutofillInput): AutofillPick[] {
  const picks: AutofillPick[] = [];
  const people = new Map<string, Candidate>();
  const candidate = (id: string) => {
    let c = people.get(id);
    if (!c) people.set(id, (c = { id, load: input.recent.get(id) ?? 0, free: !input.busy.has(id) && !input.blockedOut.has(id) && (input.monthLeft?.get(id) ?? 1) > 0, team: -1 }));
    return c;
  };
  const picked = new Map<string, number>();
  input.teams.forEach(({ position, personIds }, team) => {
    let open = position.count - position.assigned - (picked.get(position.id) ?? 0);
    if (open <= 0) return;
    // The team's free candidates, each once, in the order listed.
    const free: Candidate[] = [];
    for (const id of personIds) {
      const c = candidate(id);
      if (c.team === team) continue;
      c.team = team;
      if (c.free) free.push(c);
    }
    // The least loaded first, the earlier listed of two alike: the first minimum, taken `open` times (a
    // position usually has one or two open slots, so no team is sorted whole). Whoever is picked serves that
    // day: no longer free for this position or any later one.
    for (; open > 0; open--) {
      let best: Candidate | undefined;
      for (const c of free) if (c.free && (!best || c.load < best.load)) best = c;
      if (!best) break;
      best.free = false;
      picks.push({ positionId: position.id, personId: best.id });
      picked.set(position.id, (picked.get(position.id) ?? 0) + 1);
    }
  });
  return picks;
}
