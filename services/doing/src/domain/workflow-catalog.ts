/**
 * What the workflow screens offer to pick from: starter templates (`GET /workflows/templates`) and, per webhook event
 * a trigger may listen to, the facts its conditions may test (`GET /workflowTriggers/fields`). The facts are the
 * ones `trigger-events.ts` derives from a change record.
 */

export interface WorkflowTemplate {
  key: string;
  name: string;
  description: string;
  steps: Array<{ name: string; expectedResponseDays?: number }>;
}

export const WORKFLOW_TEMPLATES: WorkflowTemplate[] = [
  {
    key: 'newVisitor',
    name: 'New Visitor Follow-up',
    description: 'Welcome first-time guests and help them connect.',
    steps: [{ name: 'Send welcome email', expectedResponseDays: 1 }, { name: 'Personal phone call', expectedResponseDays: 3 }, { name: 'Invite to next step', expectedResponseDays: 7 }, { name: 'Connected' }],
  },
  {
    key: 'membership',
    name: 'Membership Class',
    description: 'Walk regular attenders toward membership.',
    steps: [{ name: 'Express interest', expectedResponseDays: 2 }, { name: 'Register for class', expectedResponseDays: 7 }, { name: 'Attend class' }, { name: 'Complete membership' }],
  },
  {
    key: 'firstGift',
    name: 'First-time Giver Thank-you',
    description: 'Thank first-time givers and share what their gift does.',
    steps: [{ name: 'Send thank-you note', expectedResponseDays: 2 }, { name: 'Share giving impact', expectedResponseDays: 14 }, { name: 'Stewarded' }],
  },
];

interface FieldDef {
  key: string;
  label: string;
  type: 'string' | 'number' | 'date' | 'boolean' | 'select';
  options?: Array<{ value: string; label: string }>;
  optionsSource?: string;
}
export interface EventDef {
  eventType: string;
  label: string;
  recordType: string;
  fields: FieldDef[];
}

const opts = (...values: string[]) => values.map((value) => ({ value, label: value }));
const STATUS: FieldDef = { key: 'person.membershipStatus', label: 'Membership Status', type: 'select', options: opts('Visitor', 'Regular Attendee', 'Member', 'Staff', 'Inactive', 'Deceased') };
const PERSON: FieldDef[] = [
  STATUS,
  { key: 'person.gender', label: 'Gender', type: 'select', options: opts('Male', 'Female') },
  { key: 'person.maritalStatus', label: 'Marital Status', type: 'select', options: opts('Single', 'Married', 'Divorced', 'Widowed') },
];
const GROUP: FieldDef[] = [{ key: 'group.id', label: 'Group', type: 'select', optionsSource: 'groups' }, STATUS];
const LIST: FieldDef[] = [{ key: 'list.id', label: 'List', type: 'select', optionsSource: 'lists' }];

export const TRIGGER_EVENTS: EventDef[] = [
  { eventType: 'person.created', label: 'Person · Created', recordType: 'person', fields: PERSON },
  { eventType: 'person.updated', label: 'Person · Updated', recordType: 'person', fields: PERSON },
  {
    eventType: 'donation.created',
    label: 'Donation · Received',
    recordType: 'donation',
    fields: [{ key: 'donation.amount', label: 'Amount', type: 'number' }, { key: 'donation.method', label: 'Method', type: 'string' }, { key: 'fundDonation.fundId', label: 'Fund', type: 'select', optionsSource: 'funds' }, STATUS],
  },
  { eventType: 'group.member.added', label: 'Group · Member Joined', recordType: 'group', fields: GROUP },
  { eventType: 'group.member.removed', label: 'Group · Member Left', recordType: 'group', fields: GROUP },
  { eventType: 'group.member.requested', label: 'Group · Join Requested', recordType: 'group', fields: GROUP },
  { eventType: 'form.submission.created', label: 'Form · Submitted', recordType: 'form', fields: [{ key: 'formSubmission.formId', label: 'Form', type: 'select', optionsSource: 'forms' }, STATUS] },
  { eventType: 'attendance.recorded', label: 'Check-In · Recorded', recordType: 'attendance', fields: [{ key: 'group.id', label: 'Group', type: 'select', optionsSource: 'groups' }, STATUS] },
  { eventType: 'registration.created', label: 'Event · Registration Created', recordType: 'registration', fields: [{ key: 'registration.eventId', label: 'Event', type: 'select', optionsSource: 'events' }, STATUS] },
  { eventType: 'list.member.added', label: 'List · Member Added', recordType: 'list', fields: LIST },
  { eventType: 'list.member.removed', label: 'List · Member Removed', recordType: 'list', fields: LIST },
];
export const TRIGGER_EVENT_TYPES = TRIGGER_EVENTS.map((e) => e.eventType);

export type FilterNode = { type: 'group'; conjunction?: string; children?: FilterNode[] } | { type: 'condition'; field: string; operator: string; value?: string | null };

/** An event rule's filter tree from its stored JSON text; `null` (no filter) when absent. Throws on text that is not a tree. */
export function parseFilter(text: string | null | undefined): FilterNode | null {
  if (!text) return null;
  const node = JSON.parse(text) as FilterNode;
  const valid = (n: unknown): boolean => {
    if (!n || typeof n !== 'object') return false;
    const x = n as Record<string, unknown>;
    if (x.type === 'group') return x.children === undefined || (Array.isArray(x.children) && x.children.every(valid));
    return x.type === 'condition' && typeof x.field === 'string' && typeof x.operator === 'string';
  };
  if (!valid(node)) throw new Error('not a filter tree');
  return node;
}

const list = (v: string | null | undefined) => String(v ?? '').split(',').map((s) => s.trim()).filter(Boolean);

function test(actual: unknown, operator: string, value: string | null | undefined): boolean {
  const missing = actual === null || actual === undefined || actual === '';
  const a = String(actual ?? '');
  const n = Number(actual);
  const v = Number(value);
  switch (operator) {
    case '=':
      return !missing && a.toLowerCase() === String(value ?? '').toLowerCase();
    case '!=':
      return missing || a.toLowerCase() !== String(value ?? '').toLowerCase();
    case 'contains':
      return !missing && a.toLowerCase().includes(String(value ?? '').toLowerCase());
    case '>':
      return !missing && Number.isFinite(n) && n > v;
    case '<':
      return !missing && Number.isFinite(n) && n < v;
    case '>=':
      return !missing && Number.isFinite(n) && n >= v;
    case '<=':
      return !missing && Number.isFinite(n) && n <= v;
    case 'in':
      return !missing && list(value).some((x) => x.toLowerCase() === a.toLowerCase());
    case 'notIn':
      return missing || !list(value).some((x) => x.toLowerCase() === a.toLowerCase());
    default:
      return false;
  }
}

/** Whether an event's facts pass the rule's filter; a list fact (a donation's funds) passes when any item does. */
export function matchesFilter(facts: Record<string, unknown>, node: FilterNode | null): boolean {
  if (!node) return true;
  if (node.type === 'group') {
    const children = node.children ?? [];
    if (!children.length) return true;
    return String(node.conjunction).toUpperCase() === 'OR' ? children.some((c) => matchesFilter(facts, c)) : children.every((c) => matchesFilter(facts, c));
  }
  const actual = facts[node.field];
  return Array.isArray(actual) ? (node.operator === '!=' || node.operator === 'notIn' ? actual.every((a) => test(a, node.operator, node.value)) : actual.some((a) => test(a, node.operator, node.value))) : test(actual, node.operator, node.value);
}

/** The facts an event rule may test that need the person (their membership status…), by field key prefix. */
export const needsPerson = (node: FilterNode | null): boolean => (!node ? false : node.type === 'group' ? (node.children ?? []).some(needsPerson) : node.field.startsWith('person.'));
