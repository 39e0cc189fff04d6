import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id, timestamps } from '@church/common';

/**
 * API keys (`cak_<prefix>.<secret>`): the secret is stored as sha256 only and shown once. A key acts for the user
 * who made it, in its church, with that user's permissions as they are when a token is minted from it, narrowed
 * to its scopes. `prefix` is how a presented key is found before anyone is authenticated, so its index cannot
 * lead with the church (like OAuth client ids).
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: id(),
    churchId: churchId(),
    userId: uuid('user_id').notNull(),
    personId: uuid('person_id'),
    name: text('name').notNull(),
    prefix: text('prefix').notNull(),
    keyHash: text('key_hash').notNull(),
    scopes: text('scopes').array().notNull(),
    lastUsedAt: at('last_used_at'),
    expiresAt: at('expires_at'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('api_keys_prefix_uq').on(t.prefix), index('api_keys_church_idx').on(t.churchId, t.createdAt), index('api_keys_church_user_idx').on(t.churchId, t.userId)],
);

/**
 * OAuth relay sessions: an app (B1Admin's content-provider and storage sign-ins, a TV app) opens one, sends the
 * person to an outside provider with the session code as `state`, and polls until the provider's redirect to
 * `/oauth/relay/callback` has left the code here (kept encrypted, handed out once).
 */
export const oauthRelaySessions = pgTable(
  'oauth_relay_sessions',
  {
    id: id(),
    churchId: churchId(),
    userId: uuid('user_id'),
    sessionCode: text('session_code').notNull(),
    provider: text('provider').notNull(),
    status: text('status', { enum: ['pending', 'completed'] }).notNull().default('pending'),
    /** the provider's authorization code, encrypted (deps.secrets) */
    authCode: text('auth_code'),
    expiresAt: at('expires_at').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('oauth_relay_sessions_code_uq').on(t.sessionCode), index('oauth_relay_sessions_expires_idx').on(t.expiresAt)],
);

/** A church's subscription of a receiving URL to change events (`CHANGE_EVENTS`); the signing secret is encrypted. */
export const webhooks = pgTable(
  'webhooks',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    url: text('url').notNull(),
    /** `whsec_…` (Standard Webhooks), encrypted with deps.secrets */
    secret: text('secret').notNull(),
    events: text('events').array().notNull(),
    active: boolean('active').notNull().default(true),
    connectorType: text('connector_type').notNull().default('standard'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    createdBy: uuid('created_by'),
    ...timestamps(),
  },
  (t) => [index('webhooks_church_idx').on(t.churchId)],
);

/** One message to one webhook: its payload, how its attempts went, and where it stands. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: id(),
    churchId: churchId(),
    webhookId: uuid('webhook_id').notNull(),
    /** the Standard Webhooks `webhook-id`: the same for a redelivery of the same message */
    messageId: text('message_id').notNull(),
    event: text('event').notNull(),
    payload: text('payload').notNull(),
    status: text('status', { enum: ['pending', 'succeeded', 'failed', 'exhausted'] }).notNull().default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    nextAttemptAt: at('next_attempt_at'),
    createdAt: at('created_at').notNull().defaultNow(),
    completedAt: at('completed_at'),
  },
  (t) => [index('webhook_deliveries_church_webhook_idx').on(t.churchId, t.webhookId, t.createdAt)],
);

/** Every attempt of a delivery: the receiver's status (null when it could not be reached) and a body excerpt. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: id(),
    churchId: churchId(),
    deliveryId: uuid('delivery_id').notNull(),
    attempt: integer('attempt').notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [index('webhook_attempts_church_delivery_idx').on(t.churchId, t.deliveryId, t.attempt)],
);

/** Saved people lists (B1Admin's people page): the search they re-run, who made them, who sees them. */
export const savedLists = pgTable(
  'saved_lists',
  {
    id: id(),
    churchId: churchId(),
    createdByPersonId: uuid('created_by_person_id'),
    name: text('name').notNull(),
    category: text('category'),
    /** the screen's own filter state (re-seeds its advanced panel); kept as sent */
    conditions: jsonb('conditions'),
    /** the rules tree the server evaluates (`lists/:id/people`) */
    rules: jsonb('rules'),
    scope: text('scope', { enum: ['private', 'org'] }).notNull().default('org'),
    householdInclusion: text('household_inclusion', { enum: ['none', 'children', 'household'] }).notNull().default('none'),
    autoRefresh: boolean('auto_refresh').notNull().default(false),
    notifyOnChange: boolean('notify_on_change').notNull().default(false),
    ...timestamps(),
  },
  (t) => [index('saved_lists_church_idx').on(t.churchId, t.name)],
);

/** Who may (or may not) collect a household's children at check-out. */
export const householdPickups = pgTable(
  'household_pickups',
  {
    id: id(),
    churchId: churchId(),
    householdId: uuid('household_id').notNull(),
    /** a person of the church, when the collector is one */
    personId: uuid('person_id'),
    name: text('name'),
    photoUrl: text('photo_url'),
    relationship: text('relationship'),
    status: text('status', { enum: ['trusted', 'notAuthorized'] }).notNull().default('trusted'),
    notes: text('notes'),
    ...timestamps(),
  },
  (t) => [index('household_pickups_church_household_idx').on(t.churchId, t.householdId)],
);

/** A person's request to join a group whose join policy is `request`; leaders or staff decide. */
export const groupJoinRequests = pgTable(
  'group_join_requests',
  {
    id: id(),
    churchId: churchId(),
    groupId: uuid('group_id').notNull(),
    personId: uuid('person_id').notNull(),
    message: text('message'),
    status: text('status', { enum: ['pending', 'approved', 'declined', 'cancelled'] }).notNull().default('pending'),
    requestDate: at('request_date').notNull().defaultNow(),
    decidedBy: uuid('decided_by'),
    decidedDate: at('decided_date'),
    declineReason: text('decline_reason'),
  },
  (t) => [
    index('group_join_requests_church_status_idx').on(t.churchId, t.status, t.groupId),
    index('group_join_requests_church_person_idx').on(t.churchId, t.personId),
    // one open request per person and group, whatever races
    uniqueIndex('group_join_requests_pending_uq').on(t.churchId, t.groupId, t.personId).where(sql`status = 'pending'`),
  ],
);

/** A group tied to something of another module (a plan type's team, a piece of content). */
export const associatedGroups = pgTable(
  'associated_groups',
  {
    id: id(),
    churchId: churchId(),
    contentType: text('content_type').notNull(),
    contentId: text('content_id').notNull(),
    groupId: uuid('group_id').notNull(),
    settings: text('settings'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('associated_groups_uq').on(t.churchId, t.contentType, t.contentId, t.groupId),
    index('associated_groups_church_group_idx').on(t.churchId, t.groupId),
  ],
);

/** A bulk change (bulk update or delete of people) that staff can review and undo. */
export const batches = pgTable(
  'batches',
  {
    id: id(),
    churchId: churchId(),
    userId: uuid('user_id'),
    label: text('label'),
    source: text('source'),
    status: text('status', { enum: ['open', 'completed', 'undone', 'partial', 'failed'] }).notNull().default('completed'),
    itemCount: integer('item_count').notNull().default(0),
    createdAt: at('created_at').notNull().defaultNow(),
    completedAt: at('completed_at'),
    undoneAt: at('undone_at'),
  },
  (t) => [index('batches_church_idx').on(t.churchId, t.createdAt)],
);

/** One record a batch changed, with the fields as they were before it (what undo restores). */
export const batchItems = pgTable(
  'batch_items',
  {
    id: id(),
    churchId: churchId(),
    batchId: uuid('batch_id').notNull(),
    entityType: text('entity_type').notNull(),
    entityId: uuid('entity_id').notNull(),
    action: text('action').notNull(),
    before: jsonb('before').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [index('batch_items_church_batch_idx').on(t.churchId, t.batchId)],
);

/** A church's additional websites, each on a sub-domain of its own (one namespace with churches' sub-domains). */
export const sites = pgTable(
  'sites',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    subDomain: text('sub_domain').notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('sites_sub_domain_uq').on(sql`lower(${t.subDomain})`), index('sites_church_idx').on(t.churchId)],
);
