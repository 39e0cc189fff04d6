import { hasPermission, type Claims } from '@church/auth';
import { badRequest } from '@church/common';
import type { TaskRow } from '../repos/tasks';

// A directory update is a person's request to change their own directory record; staff approve it by
// closing the task as `approved`, and only then do the changes reach membership.

const NAME_FIELDS = ['firstName', 'lastName', 'middleName', 'nickName', 'prefix', 'suffix'];
const PERSON_FIELDS = [...NAME_FIELDS, 'birthDate', 'gender', 'maritalStatus', 'anniversary', 'photo'];
const CONTACT_FIELDS = ['address1', 'address2', 'city', 'state', 'zip', 'homePhone', 'mobilePhone', 'workPhone', 'email'];

/**
 * The requested changes as `{field: value}`, from an object, a `[{field, value}]` list or either as JSON text.
 * Contact fields may come flat or under `contactInfo`; anything else is refused by name.
 */
export function normalizeChanges(data: unknown, param = 'data'): Record<string, unknown> {
  let value = data;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw badRequest(param, 'must be JSON: {field: value} or [{field, value}]');
    }
  }
  // A Map: a caller's key (`__proto__`, `constructor`) is a key like any other, refused below by name.
  const flat = new Map<string, unknown>();
  if (Array.isArray(value)) {
    for (const [i, entry] of value.entries()) {
      if (!entry || typeof entry !== 'object' || typeof (entry as { field?: unknown }).field !== 'string') throw badRequest(`${param}[${i}].field`, 'is required');
      flat.set((entry as { field: string }).field, (entry as { value?: unknown }).value ?? null);
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'contactInfo' && v && typeof v === 'object') for (const [ck, cv] of Object.entries(v)) flat.set(ck, cv);
      else flat.set(k, v);
    }
  } else {
    throw badRequest(param, 'must list the requested changes');
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of flat) {
    const field = key.replace(/^(name|contactInfo)\./, '');
    if (!PERSON_FIELDS.includes(field) && !CONTACT_FIELDS.includes(field)) throw badRequest(`${param}.${key}`, 'is not a directory field');
    if (v !== null && typeof v !== 'string') throw badRequest(`${param}.${key}`, 'must be text or null');
    if (typeof v === 'string' && v.length > (field === 'photo' ? 8_000_000 : 500)) throw badRequest(`${param}.${key}`, 'is too long');
    out[field] = v;
  }
  if (!Object.keys(out).length) throw badRequest(param, 'must list at least one change');
  return out;
}

/** The changes as membership's person save takes them: contact fields under `contactInfo`. */
export function toPersonChanges(changes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const contactInfo: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(changes)) (CONTACT_FIELDS.includes(k) ? contactInfo : out)[k] = v;
  if (Object.keys(contactInfo).length) out.contactInfo = contactInfo;
  return out;
}

/** A field's name as a person reads it (`mobilePhone` → `Mobile Phone`). */
const labelOf = (field: string) => field.replace(/([a-z])([A-Z0-9])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());

/**
 * A directory update's requested changes as the member app reads them (B1App's profile page `JSON.parse`s the task's
 * `data` into `[{field, label, value}]`): JSON text of that list, from the stored `{field: value}`.
 */
export function requestedChangesText(data: unknown): string | null {
  if (typeof data === 'string') return data;
  if (Array.isArray(data)) return JSON.stringify(data);
  if (!data || typeof data !== 'object') return null;
  return JSON.stringify(Object.entries(data as Record<string, unknown>).map(([field, value]) => ({ field, label: labelOf(field), value })));
}

/**
 * A directory update holds a person's requested contact details, not yet approved: it is read by that person, by
 * whoever it is assigned to (a person, or a leader of the group), and by staff who may approve it (People.Edit).
 * Other tasks of the church are read by any of its members (spec).
 */
export function mayReadTask(auth: Claims, task: Pick<TaskRow, 'taskType' | 'associatedWithType' | 'associatedWithId' | 'createdByType' | 'createdById' | 'assignedToType' | 'assignedToId'>): boolean {
  if (task.taskType !== 'directoryUpdate' || hasPermission(auth, 'People.Edit')) return true;
  const me = auth.personId?.toLowerCase();
  const isMe = (type: string | null, id: string | null) => !!me && type === 'person' && id?.toLowerCase() === me;
  if (isMe(task.associatedWithType, task.associatedWithId) || isMe(task.createdByType, task.createdById) || isMe(task.assignedToType, task.assignedToId)) return true;
  return task.assignedToType === 'group' && !!task.assignedToId && auth.leaderGroupIds.includes(task.assignedToId);
}
