import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id, timestamps } from '@church/common';

/** The church id of the server-wide role (server admins): roles otherwise always belong to a church. */
export const SERVER_CHURCH_ID = '00000000-0000-0000-0000-000000000000';

/** Login accounts; global, not church-scoped (one user belongs to many churches). */
export const users = pgTable(
  'users',
  {
    id: id(),
    email: text('email').notNull(),
    passwordHash: text('password_hash'),
    firstName: text('first_name'),
    lastName: text('last_name'),
    /** sha256 of the one-time authGuid from a welcome or reset message */
    authGuidHash: text('auth_guid_hash'),
    authGuidExpiresAt: at('auth_guid_expires_at'),
    /** the owner proved the address: they followed a link mailed to it (welcome, reset or email confirmation) */
    emailVerified: boolean('email_verified').notNull().default(false),
    /** an address asked for by `updateEmail`, not yet confirmed; sha256 of the link's guid and its expiry */
    pendingEmail: text('pending_email'),
    emailGuidHash: text('email_guid_hash'),
    emailGuidExpiresAt: at('email_guid_expires_at'),
    /**
     * The 6-digit code mailed beside the link (register, forgot) as an HMAC keyed by the server's secret, its expiry
     * and the wrong tries so far (`verifyCode`; the code is cleared after too many).
     */
    verifyCodeHash: text('verify_code_hash'),
    verifyCodeExpiresAt: at('verify_code_expires_at'),
    verifyCodeAttempts: integer('verify_code_attempts').notNull().default(0),
    lastLogin: at('last_login'),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('users_email_uq').on(sql`lower(${t.email})`),
    index('users_auth_guid_idx').on(t.authGuidHash),
    index('users_email_guid_idx').on(t.emailGuidHash),
  ],
);

export const churches = pgTable(
  'churches',
  {
    id: id(),
    name: text('name').notNull(),
    subDomain: text('sub_domain'),
    address1: text('address1'),
    address2: text('address2'),
    city: text('city'),
    state: text('state'),
    zip: text('zip'),
    country: text('country'),
    archivedDate: at('archived_date'),
    /** last time anyone used the church; `deleteAbandoned` removes churches untouched for 7+ days */
    lastActivity: at('last_activity').notNull().defaultNow(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('churches_sub_domain_uq').on(sql`lower(${t.subDomain})`), index('churches_name_idx').on(sql`lower(${t.name})`)],
);

/** A user's link to a church and to their person record there. */
export const userChurches = pgTable(
  'user_churches',
  {
    id: id(),
    userId: uuid('user_id').notNull(),
    churchId: churchId(),
    personId: uuid('person_id'),
    lastAccessed: at('last_accessed'),
    ...timestamps(),
  },
  (t) => [uniqueIndex('user_churches_uq').on(t.churchId, t.userId), index('user_churches_user_idx').on(t.userId)],
);

export const roles = pgTable('roles', { id: id(), churchId: churchId(), name: text('name').notNull(), ...timestamps() }, (t) => [
  index('roles_church_idx').on(t.churchId),
]);

export const roleMembers = pgTable(
  'role_members',
  {
    id: id(),
    churchId: churchId(),
    roleId: uuid('role_id').notNull(),
    userId: uuid('user_id').notNull(),
    addedBy: uuid('added_by'),
    ...timestamps(),
  },
  (t) => [uniqueIndex('role_members_uq').on(t.churchId, t.roleId, t.userId), index('role_members_user_idx').on(t.userId, t.churchId)],
);

/** A permission held by a role; `roleId` null means the church's Everyone role. */
export const rolePermissions = pgTable(
  'role_permissions',
  {
    id: id(),
    churchId: churchId(),
    roleId: uuid('role_id'),
    apiName: text('api_name').notNull(),
    contentType: text('content_type').notNull(),
    contentId: text('content_id'),
    action: text('action').notNull(),
    ...timestamps(),
  },
  (t) => [index('role_permissions_role_idx').on(t.churchId, t.roleId)],
);

/** OAuth clients; the secret is stored hashed and shown only when created. */
export const oauthClients = pgTable(
  'oauth_clients',
  {
    id: id(),
    name: text('name').notNull(),
    clientId: text('client_id').notNull(),
    clientSecretHash: text('client_secret_hash'),
    redirectUris: text('redirect_uris').array().notNull().default(sql`'{}'::text[]`),
    scopes: text('scopes').array().notNull().default(sql`'{}'::text[]`),
    ...timestamps(),
  },
  (t) => [uniqueIndex('oauth_clients_client_id_uq').on(t.clientId)],
);

/** Authorization codes: single-use, bound to client and redirect_uri, stored hashed. */
export const oauthCodes = pgTable(
  'oauth_codes',
  {
    id: id(),
    codeHash: text('code_hash').notNull(),
    clientId: text('client_id').notNull(),
    userId: uuid('user_id').notNull(),
    churchId: churchId(),
    redirectUri: text('redirect_uri').notNull(),
    scopes: text('scopes').array().notNull(),
    expiresAt: at('expires_at').notNull(),
    usedAt: at('used_at'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('oauth_codes_hash_uq').on(t.codeHash)],
);

/** Refresh tokens, stored hashed. */
export const oauthRefreshTokens = pgTable(
  'oauth_refresh_tokens',
  {
    id: id(),
    tokenHash: text('token_hash').notNull(),
    clientId: text('client_id').notNull(),
    userId: uuid('user_id').notNull(),
    churchId: churchId(),
    scopes: text('scopes').array().notNull(),
    expiresAt: at('expires_at').notNull(),
    revokedAt: at('revoked_at'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('oauth_refresh_hash_uq').on(t.tokenHash)],
);

/** RFC 8628 device authorizations: pending → approved | denied, 900 s lifetime, 5 s polling. */
export const oauthDeviceCodes = pgTable(
  'oauth_device_codes',
  {
    id: id(),
    deviceCodeHash: text('device_code_hash').notNull(),
    /** normalised: upper case, no hyphen */
    userCode: text('user_code').notNull(),
    clientId: text('client_id').notNull(),
    scopes: text('scopes').array().notNull(),
    status: text('status', { enum: ['pending', 'approved', 'denied', 'spent'] }).notNull().default('pending'),
    userId: uuid('user_id'),
    churchId: uuid('church_id'),
    expiresAt: at('expires_at').notNull(),
    lastPolledAt: at('last_polled_at'),
    /** seconds between polls; RFC 8628 §3.5 adds 5 after every slow_down */
    pollInterval: integer('poll_interval').notNull().default(5),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('oauth_device_hash_uq').on(t.deviceCodeHash), index('oauth_device_user_code_idx').on(t.userCode)],
);

export const clientErrors = pgTable(
  'client_errors',
  {
    id: id(),
    churchId: uuid('church_id'),
    userId: uuid('user_id'),
    originUrl: text('origin_url'),
    application: text('application'),
    errorType: text('error_type'),
    message: text('message'),
    details: text('details'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [index('client_errors_church_idx').on(t.churchId, t.createdAt)],
);


/**
 * Token revocation stamps (append-only; rows older than a login token's lifetime are pruned): tokens of the user
 * (of the user in `churchId`, when set) minted before `atMs` are refused by every service (`@church/common`
 * revocations.ts polls `POST /membership/internal/revocations` and hears Redis).
 */
export const tokenRevocations = pgTable(
  'token_revocations',
  {
    id: id(),
    userId: uuid('user_id').notNull(),
    churchId: uuid('church_id'),
    atMs: bigint('at_ms', { mode: 'number' }).notNull(),
  },
  (t) => [index('token_revocations_at_idx').on(t.atMs)],
);
