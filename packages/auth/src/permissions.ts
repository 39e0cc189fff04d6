/** The API modules a permission can belong to, as `apis[].keyName` names them in the login response. */
export const API_NAMES = [
  'MembershipApi',
  'AttendanceApi',
  'GivingApi',
  'MessagingApi',
  'ContentApi',
  'DoingApi',
  'ReportingApi',
] as const;
export type ApiName = (typeof API_NAMES)[number];

/** One row of the spec's permission reference. */
export interface PermissionDef {
  apiName: ApiName;
  section: string;
  contentType: string;
  action: string;
  displayName: string;
}

const row = (apiName: ApiName, section: string, contentType: string, action: string, displayName: string): PermissionDef => ({
  apiName,
  section,
  contentType,
  action,
  displayName,
});

/** Every permission a role can hold (the spec's permission reference plus the two it names besides). */
export const PERMISSIONS: readonly PermissionDef[] = [
  row('AttendanceApi', 'Attendance', 'Attendance', 'Checkin', 'Check members in at services'),
  row('AttendanceApi', 'Attendance', 'Attendance', 'Edit', 'Edit attendance records'),
  row('AttendanceApi', 'Attendance', 'Services', 'Edit', 'Manage services and service times'),
  row('AttendanceApi', 'Attendance', 'Attendance', 'View', 'View attendance records'),
  row('AttendanceApi', 'Attendance', 'Attendance', 'View Summary', 'View attendance summaries and reports'),
  row('GivingApi', 'Donations', 'Donations', 'Edit', 'Create and edit donation records'),
  row('GivingApi', 'Donations', 'Settings', 'Edit', 'Edit giving and payment settings'),
  row('GivingApi', 'Donations', 'Donations', 'View Summary', 'View donation summary reports'),
  row('GivingApi', 'Donations', 'Donations', 'View', 'View individual donation records'),
  row('MembershipApi', 'People and Groups', 'Forms', 'Admin', 'Full form administration'),
  row('MembershipApi', 'People and Groups', 'Forms', 'Edit', 'Edit form definitions'),
  row('MembershipApi', 'People and Groups', 'Plans', 'Edit', 'Edit service plans'),
  row('MembershipApi', 'People and Groups', 'Group Members', 'Edit', 'Add and remove group members'),
  row('MembershipApi', 'People and Groups', 'Groups', 'Edit', 'Create and edit groups'),
  row('MembershipApi', 'People and Groups', 'Households', 'Edit', 'Edit household assignments'),
  row('MembershipApi', 'People and Groups', 'People', 'Edit', 'Edit any person record'),
  row('MembershipApi', 'People and Groups', 'People', 'Edit Self', 'Edit only own person record'),
  row('MembershipApi', 'People and Groups', 'Roles', 'Edit', 'Manage roles and user assignments'),
  row('MembershipApi', 'People and Groups', 'Group Members', 'View', 'View group member lists'),
  row('MembershipApi', 'People and Groups', 'People', 'View Members', 'View members only (not visitors)'),
  row('MembershipApi', 'People and Groups', 'People', 'View', 'View all people'),
  row('MembershipApi', 'People and Groups', 'People', 'View Confidential Notes', 'View confidential notes'),
  row('MembershipApi', 'People and Groups', 'Roles', 'View', 'View roles and assignments'),
  row('MembershipApi', 'People and Groups', 'Settings', 'Edit', 'Edit church settings'),
  row('ContentApi', 'Content', 'Content', 'Edit', 'Edit pages, sections and elements'),
  row('ContentApi', 'Content', 'Settings', 'Edit', 'Edit content settings'),
  row('ContentApi', 'Content', 'StreamingServices', 'Edit', 'Manage streaming service configuration'),
  row('ContentApi', 'Content', 'Chat', 'Host', 'Host and moderate chat sessions'),
  row('MessagingApi', 'Messaging', 'Texting', 'Send', 'Send SMS text messages'),
];

/** Held by server admins only; never part of a church's own roles. */
export const SERVER_ADMIN: PermissionDef = row('MembershipApi', 'Server', 'Server', 'Admin', 'Full access across all churches');

/**
 * The canonical key of a permission: `ContentType.Action` without spaces, because the spec writes
 * `View Summary` and `ViewSummary`, `Group Members` and `GroupMembers` for the same thing.
 */
export function permissionKey(contentType: string, action: string): string {
  return `${contentType}.${action}`.replace(/\s+/g, '');
}

/** Normalises a permission as written in the spec (`GroupMembers.View`, `Attendance.View Summary`). */
export function normalizePermission(text: string): string {
  return text.replace(/\s+/g, '');
}

/**
 * Which API a content type's permissions live in. `Settings` is the one content type several APIs
 * share, so it resolves to the service's own API (see `apiForPermission`).
 */
const API_OF_CONTENT_TYPE: Record<string, ApiName> = {
  People: 'MembershipApi',
  Groups: 'MembershipApi',
  GroupMembers: 'MembershipApi',
  Households: 'MembershipApi',
  Roles: 'MembershipApi',
  Forms: 'MembershipApi',
  Plans: 'MembershipApi',
  Server: 'MembershipApi',
  Attendance: 'AttendanceApi',
  Services: 'AttendanceApi',
  Donations: 'GivingApi',
  Content: 'ContentApi',
  StreamingServices: 'ContentApi',
  Chat: 'ContentApi',
  Texting: 'MessagingApi',
};

/** The API whose permission list holds `key`, read from the point of view of a service owning `ownApi`. */
export function apiForPermission(key: string, ownApi: ApiName): ApiName {
  const contentType = key.slice(0, key.indexOf('.'));
  return API_OF_CONTENT_TYPE[contentType] ?? ownApi;
}
