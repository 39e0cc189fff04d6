/** The age groups of the demographics charts (people and group health), as `[label, lowest age, highest age]`. */
const AGE_GROUPS: Array<[string, number, number]> = [
  ['0-3', 0, 3],
  ['4-11', 4, 11],
  ['12-18', 12, 18],
  ['19-25', 19, 25],
  ['26-35', 26, 35],
  ['36-50', 36, 50],
  ['51-64', 51, 64],
  ['65+', 65, Infinity],
];

export interface AgeRow {
  /** as written, blank → `Unassigned` */
  gender: string;
  /** whole years, null without a birth date */
  age: number | null;
  count: number;
}

/** Counts by age group and gender (female, male, anything else), every group present, youngest first. */
export function ageGroups(rows: AgeRow[]) {
  const groups = AGE_GROUPS.map(([group]) => ({ group, female: 0, male: 0, unassigned: 0 }));
  for (const r of rows) {
    if (r.age === null) continue;
    const at = AGE_GROUPS.findIndex(([, low, high]) => r.age! >= low && r.age! <= high);
    if (at < 0) continue;
    const g = r.gender.toLowerCase();
    groups[at]![g === 'female' ? 'female' : g === 'male' ? 'male' : 'unassigned'] += Number(r.count);
  }
  return groups;
}

/** `[{name, count}]` from rows with a name, largest first (then by name). */
export function countsByName(rows: Array<{ name: string; count: number }>) {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.name, (counts.get(r.name) ?? 0) + Number(r.count));
  return [...counts.entries()].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}
