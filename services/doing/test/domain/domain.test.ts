import { autofill } from '../../src/lib/autofill';
import { compare, compileTree, conditionHolds, periodOf } from '../../src/domain/conditions';
import { buildTree } from '../../src/lib/tree';
import { person } from '../setup';

describe('conditions', () => {
  const cond = (field: string, operator: string, value: string | null, fieldData: string | null = null) => ({ id: field, conjunctionId: null, field, fieldData, operator, value });

  it('compares numbers as numbers and text case-insensitively', () => {
    expect(compare(10, '>', '9')).toBe(true);
    expect(compare('Member', '=', 'member')).toBe(true);
    expect(compare('Regular Attendee', 'in', 'member, regular attendee')).toBe(true);
    expect(compare(null, 'isEmpty', null)).toBe(true);
    expect(compare(null, '=', 'x')).toBe(false);
    expect(compare('abc', 'startsWith', 'AB')).toBe(true);
  });

  it('computes age, days until a birthday (29 February on the 28th in other years) and years married', () => {
    const p = person({ birthDate: '2000-02-29', anniversary: '2010-06-15' });
    expect(conditionHolds(cond('age', '=', '31'), p, '2031-03-01')).toBe(true);
    expect(conditionHolds(cond('daysUntilBirthday', '=', '0'), p, '2031-02-28')).toBe(true);
    expect(conditionHolds(cond('daysUntilBirthday', '=', '1'), p, '2032-02-28')).toBe(true);
    expect(conditionHolds(cond('yearsMarried', '=', '20'), p, '2030-06-15')).toBe(true);
    expect(conditionHolds(cond('yearsMarried', '=', '20'), p, '2030-06-14')).toBe(false);
    expect(conditionHolds(cond('today', '=', '03-01', 'monthDay'), p, '2031-03-01')).toBe(true);
  });

  it('ANDs the top level, ORs inside an or group, and selects nobody from an empty tree', () => {
    const a = person({ gender: 'Female', membershipStatus: 'Visitor' });
    const b = person({ gender: 'Male', membershipStatus: 'Member' });
    const test = compileTree(
      [
        { ...cond('gender', '=', 'female'), conjunctionId: 'or' },
        { ...cond('membershipStatus', '=', 'member'), conjunctionId: 'or' },
        { ...cond('lastName', '=', 'doe'), id: 'c3' },
      ],
      [{ id: 'or', parentId: null, groupType: 'or' }],
    );
    expect([a, b].map((p) => test(p, '2031-01-01'))).toEqual([true, true]);
    expect(test(person({ gender: 'Male', membershipStatus: 'Visitor' }), '2031-01-01')).toBe(false);
    expect(compileTree([], [{ id: 'x', parentId: null, groupType: 'and' }])(a, '2031-01-01')).toBe(false);
    // a stored cycle does not loop
    expect(compileTree([], [{ id: 'x', parentId: 'y', groupType: 'and' }, { id: 'y', parentId: 'x', groupType: 'or' }])(a, '2031-01-01')).toBe(false);
  });

  it('names the recurrence window', () => {
    expect(periodOf('weekly', '2031-03-05')).toBe('week:2031-03-02');
    expect(periodOf('monthly', '2031-03-05')).toBe('month:2031-03');
    expect(periodOf('yearly', '2031-03-05')).toBe('year:2031');
    expect(periodOf('none', '2031-03-05')).toBe('once');
  });
});

describe('autofill', () => {
  it('fills by fewest recent assignments, ties in listed order, skipping blocked and busy people', () => {
    const picks = autofill({
      teams: [
        { position: { id: 'p1', count: 2, assigned: 0 }, personIds: ['a', 'b', 'c', 'd', 'e'] },
        { position: { id: 'p2', count: 2, assigned: 1 }, personIds: ['a', 'b', 'c', 'd', 'e'] },
      ],
      blockedOut: new Set(['a']),
      busy: new Set(['b']),
      recent: new Map([['c', 3]]),
    });
    expect(picks).toEqual([
      { positionId: 'p1', personId: 'd' },
      { positionId: 'p1', personId: 'e' },
      { positionId: 'p2', personId: 'c' },
    ]);
  });

  it('fills a position listed twice only up to its count, and never picks one person twice', () => {
    const picks = autofill({
      teams: [
        { position: { id: 'p1', count: 2, assigned: 1 }, personIds: ['a', 'b'] },
        { position: { id: 'p1', count: 2, assigned: 1 }, personIds: ['c', 'd'] },
        { position: { id: 'p2', count: 3, assigned: 0 }, personIds: ['a', 'a', 'b'] },
      ],
      blockedOut: new Set(),
      busy: new Set(),
      recent: new Map(),
    });
    expect(picks).toEqual([
      { positionId: 'p1', personId: 'a' },
      { positionId: 'p2', personId: 'b' },
    ]);
  });
});

describe('buildTree', () => {
  it('nests by parent and sorts siblings; orphans rise to the top', () => {
    const tree = buildTree([
      { id: '2', parentId: '1', sort: 2 },
      { id: '1', parentId: null, sort: 1 },
      { id: '3', parentId: '1', sort: 1 },
      { id: '4', parentId: 'gone', sort: 0 },
    ]);
    expect(tree.map((n) => [n.id, n.children.map((c) => c.id)])).toEqual([
      ['4', []],
      ['1', ['3', '2']],
    ]);
  });
});
