import { parseMemberQuery } from '../../src/domain/member-query';
import { parseCondition, type Condition } from '../../src/lib/advanced-search';
import { conditionsWhere } from '../../src/repos/advanced-search';

// A Wednesday: this week runs Sunday 2025-06-08 to Saturday 2025-06-14.
const NOW = new Date('2025-06-11T15:00:00Z');
const parse = (text: string) => parseMemberQuery(text, NOW);

describe('parseMemberQuery', () => {
  it.each([
    ['men over 40', [{ field: 'gender', operator: 'equals', value: 'Male' }, { field: 'age', operator: 'greaterThan', value: 40 }]],
    ['women under 30', [{ field: 'gender', operator: 'equals', value: 'Female' }, { field: 'age', operator: 'lessThan', value: 30 }]],
    ['members born in May', [{ field: 'membershipStatus', operator: 'equals', value: 'Member' }, { field: 'birthMonth', operator: 'equals', value: 5 }]],
    ['women in the youth group', [{ field: 'gender', operator: 'equals', value: 'Female' }, { field: 'groupName', operator: 'contains', value: 'youth' }]],
    ['visitors added this month', [{ field: 'membershipStatus', operator: 'equals', value: 'Visitor' }, { field: 'createdAt', operator: 'between', value: ['2025-06-01', '2025-06-30'] }]],
    ['married men', [{ field: 'gender', operator: 'equals', value: 'Male' }, { field: 'maritalStatus', operator: 'equals', value: 'Married' }]],
  ])('reads the brief’s example "%s"', (text, conditions) => {
    expect(parse(text)).toEqual({ conditions, recognized: true });
  });

  describe('ages', () => {
    it.each([
      ['people over forty', { field: 'age', operator: 'greaterThan', value: 40 }],
      ['people older than 65', { field: 'age', operator: 'greaterThan', value: 65 }],
      ['at least 18', { field: 'age', operator: 'greaterThan', value: 17 }],
      ['40 and over', { field: 'age', operator: 'greaterThan', value: 39 }],
      ['21+', { field: 'age', operator: 'greaterThan', value: 20 }],
      ['younger than twenty-one', { field: 'age', operator: 'lessThan', value: 21 }],
      ['at most 12', { field: 'age', operator: 'lessThan', value: 13 }],
      ['12 and under', { field: 'age', operator: 'lessThan', value: 13 }],
      ['between 30 and 45', { field: 'age', operator: 'between', value: [30, 45] }],
      ['aged 18-25', { field: 'age', operator: 'between', value: [18, 25] }],
      ['people in their thirties', { field: 'age', operator: 'between', value: [30, 39] }],
      ['people in their 50s', { field: 'age', operator: 'between', value: [50, 59] }],
      ['age 16', { field: 'age', operator: 'equals', value: 16 }],
      ['16 year olds', { field: 'age', operator: 'equals', value: 16 }],
      ['children', { field: 'age', operator: 'lessThan', value: 18 }],
      ['teenagers', { field: 'age', operator: 'between', value: [13, 19] }],
      ['seniors', { field: 'age', operator: 'greaterThan', value: 64 }],
      ['adults', { field: 'age', operator: 'greaterThan', value: 17 }],
    ])('"%s"', (text, condition) => {
      expect(parse(text).conditions).toEqual([condition]);
    });
  });

  describe('dates', () => {
    it.each([
      ['born in 1980', [{ field: 'birthDate', operator: 'between', value: ['1980-01-01', '1980-12-31'] }]],
      ['born before 1960', [{ field: 'birthDate', operator: 'lessThan', value: '1960-01-01' }]],
      ['born after 2000', [{ field: 'birthDate', operator: 'greaterThan', value: '2000-12-31' }]],
      ['born between 1970 and 1979', [{ field: 'birthDate', operator: 'between', value: ['1970-01-01', '1979-12-31'] }]],
      ['birthdays in sept', [{ field: 'birthMonth', operator: 'equals', value: 9 }]],
      ['December birthdays', [{ field: 'birthMonth', operator: 'equals', value: 12 }]],
      ['birthdays this month', [{ field: 'birthMonth', operator: 'equals', value: 6 }]],
      ['birthdays next month', [{ field: 'birthMonth', operator: 'equals', value: 7 }]],
      ['anniversaries in June', [{ field: 'anniversaryMonth', operator: 'equals', value: 6 }]],
      ['anniversaries this month', [{ field: 'anniversaryMonth', operator: 'equals', value: 6 }]],
      ['added this week', [{ field: 'createdAt', operator: 'between', value: ['2025-06-08', '2025-06-14'] }]],
      ['added last week', [{ field: 'createdAt', operator: 'between', value: ['2025-06-01', '2025-06-07'] }]],
      ['added last month', [{ field: 'createdAt', operator: 'between', value: ['2025-05-01', '2025-05-31'] }]],
      ['added this year', [{ field: 'createdAt', operator: 'between', value: ['2025-01-01', '2025-12-31'] }]],
      ['added today', [{ field: 'createdAt', operator: 'equals', value: '2025-06-11' }]],
      ['added yesterday', [{ field: 'createdAt', operator: 'equals', value: '2025-06-10' }]],
      ['added in the last 7 days', [{ field: 'createdAt', operator: 'between', value: ['2025-06-04', '2025-06-11'] }]],
      ['joined in the past 2 months', [{ field: 'createdAt', operator: 'between', value: ['2025-04-11', '2025-06-11'] }]],
      ['added in March', [{ field: 'createdAt', operator: 'between', value: ['2025-03-01', '2025-03-31'] }]],
      ['added in February 2024', [{ field: 'createdAt', operator: 'between', value: ['2024-02-01', '2024-02-29'] }]],
      ['added in 2023', [{ field: 'createdAt', operator: 'between', value: ['2023-01-01', '2023-12-31'] }]],
      ['newcomers', [{ field: 'createdAt', operator: 'between', value: ['2025-05-12', '2025-06-11'] }]],
    ])('"%s"', (text, conditions) => {
      expect(parse(text).conditions).toEqual(conditions);
    });

    it('wraps next month over the year end', () => {
      expect(parseMemberQuery('birthdays next month', new Date('2025-12-20T00:00:00Z')).conditions).toEqual([{ field: 'birthMonth', operator: 'equals', value: 1 }]);
    });

    it('reads last month in January as December of the year before', () => {
      expect(parseMemberQuery('added last month', new Date('2025-01-15T00:00:00Z')).conditions).toEqual([{ field: 'createdAt', operator: 'between', value: ['2024-12-01', '2024-12-31'] }]);
    });
  });

  describe('groups', () => {
    it.each([
      ['people in the worship team', 'worship'],
      ['in the young adults group', 'young adults'],
      ['members of the choir', 'choir'],
      ['members of the youth group', 'youth'],
      ['in group Alpha', 'Alpha'],
      ['people in "Tuesday Night Bible Study"', 'Tuesday Night Bible Study'],
      ['kids in the children’s ministry', 'children\'s'],
    ])('"%s" names group %s', (text, name) => {
      expect(parse(text).conditions).toContainEqual({ field: 'groupName', operator: 'contains', value: name });
      expect(parse(text).conditions.filter((c) => c.field === 'membershipStatus')).toEqual([]);
    });

    it('keeps a month apart from a group name', () => {
      expect(parse('members born in May in the youth group').conditions).toEqual([
        { field: 'membershipStatus', operator: 'equals', value: 'Member' },
        { field: 'groupName', operator: 'contains', value: 'youth' },
        { field: 'birthMonth', operator: 'equals', value: 5 },
      ]);
    });

    it('reads "members of the church" as the status', () => {
      expect(parse('members of the church over 70').conditions).toEqual([
        { field: 'membershipStatus', operator: 'equals', value: 'Member' },
        { field: 'age', operator: 'greaterThan', value: 70 },
      ]);
    });
  });

  describe('people words', () => {
    it.each([
      ['ladies', [{ field: 'gender', operator: 'equals', value: 'Female' }]],
      ['men and women', [{ field: 'gender', operator: 'in', value: ['Male', 'Female'] }]],
      ['boys', [{ field: 'gender', operator: 'equals', value: 'Male' }, { field: 'age', operator: 'lessThan', value: 18 }]],
      ['wives', [{ field: 'gender', operator: 'equals', value: 'Female' }, { field: 'maritalStatus', operator: 'equals', value: 'Married' }]],
      ['widows', [{ field: 'gender', operator: 'equals', value: 'Female' }, { field: 'maritalStatus', operator: 'equals', value: 'Widowed' }]],
      ['single adults', [{ field: 'maritalStatus', operator: 'equals', value: 'Single' }, { field: 'age', operator: 'greaterThan', value: 17 }]],
      ['divorced women', [{ field: 'gender', operator: 'equals', value: 'Female' }, { field: 'maritalStatus', operator: 'equals', value: 'Divorced' }]],
      ['heads of household', [{ field: 'householdRole', operator: 'equals', value: 'Head' }]],
      ['regular attendees', [{ field: 'membershipStatus', operator: 'equals', value: 'Regular Attendee' }]],
      ['staff members', [{ field: 'membershipStatus', operator: 'equals', value: 'Staff' }]],
      ['members and visitors', [{ field: 'membershipStatus', operator: 'in', value: ['Member', 'Visitor'] }]],
      ['first-time guests', [{ field: 'membershipStatus', operator: 'equals', value: 'Visitor' }]],
      ['guests', [{ field: 'membershipStatus', operator: 'equals', value: 'Guest' }]],
      ['non-members', [{ field: 'membershipStatus', operator: 'notEquals', value: 'Member' }]],
      ['people who opted out', [{ field: 'optedOut', operator: 'equals', value: true }]],
      ['people named John', [{ field: 'firstName', operator: 'equals', value: 'John' }]],
      ['people whose last name is Smith', [{ field: 'lastName', operator: 'equals', value: 'Smith' }]],
      ['the Garcia family', [{ field: 'lastName', operator: 'equals', value: 'Garcia' }]],
      ['people who live in Springfield', [{ field: 'city', operator: 'equals', value: 'Springfield' }]],
    ])('"%s"', (text, conditions) => {
      expect(parse(text).conditions).toEqual(conditions);
    });
  });

  it('combines many phrases', () => {
    expect(parse('Married women over 40 in the choir group born in March, added this year?')).toEqual({
      recognized: true,
      conditions: [
        { field: 'gender', operator: 'equals', value: 'Female' },
        { field: 'groupName', operator: 'contains', value: 'choir' },
        { field: 'birthMonth', operator: 'equals', value: 3 },
        { field: 'createdAt', operator: 'between', value: ['2025-01-01', '2025-12-31'] },
        { field: 'age', operator: 'greaterThan', value: 40 },
        { field: 'maritalStatus', operator: 'equals', value: 'Married' },
      ],
    });
  });

  it('is case-insensitive and tolerates punctuation', () => {
    expect(parse('MEN, OVER 40!').conditions).toEqual(parse('men over 40').conditions);
  });

  it('understands "everyone" as no conditions', () => {
    expect(parse('everyone')).toEqual({ conditions: [], recognized: true });
  });

  it('reports text it cannot read', () => {
    expect(parse('what is the weather like')).toEqual({ conditions: [], recognized: false });
    expect(parse('')).toEqual({ conditions: [], recognized: false });
  });

  it('yields conditions advanced search accepts', () => {
    const texts = ['men over 40', 'members born in May', 'visitors added this month', 'women in the youth group', 'people in their 30s', 'born in 1980', 'non-members', 'people who opted out', 'men and women'];
    for (const text of texts) expect(() => conditionsWhere((parse(text).conditions as Condition[]).map((c, i) => parseCondition(c, i)))).not.toThrow();
  });
});
