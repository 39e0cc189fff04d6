import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { at, churchId, id } from '@church/common';

export { webhookEvents } from '@church/common/tables';

/** A conversation about a piece of content (a group, a person note, a stream, a post, a private chat). */
export const conversations = pgTable(
  'conversations',
  {
    id: id(),
    churchId: churchId(),
    contentType: text('content_type').notNull(),
    contentId: text('content_id').notNull(),
    title: text('title'),
    dateCreated: at('date_created').notNull().defaultNow(),
    groupId: uuid('group_id'),
    visibility: text('visibility'),
    allowAnonymousPosts: boolean('allow_anonymous_posts').notNull().default(false),
    firstPostId: uuid('first_post_id'),
    lastPostId: uuid('last_post_id'),
    postCount: integer('post_count').notNull().default(0),
  },
  (t) => [index('conversations_content_idx').on(t.churchId, t.contentType, t.contentId), index('conversations_group_idx').on(t.churchId, t.groupId)],
);

export const messages = pgTable(
  'messages',
  {
    id: id(),
    churchId: churchId(),
    conversationId: uuid('conversation_id').notNull(),
    personId: uuid('person_id'),
    displayName: text('display_name'),
    timeSent: at('time_sent').notNull().defaultNow(),
    timeUpdated: at('time_updated'),
    content: text('content').notNull().default(''),
    messageType: text('message_type').notNull().default('comment'),
  },
  (t) => [index('messages_conversation_idx').on(t.churchId, t.conversationId, t.timeSent)],
);

/** A person's emoji on a message (one row per person, message and emoji: a second tap takes it back). */
export const messageReactions = pgTable(
  'message_reactions',
  {
    id: id(),
    churchId: churchId(),
    messageId: uuid('message_id').notNull(),
    conversationId: uuid('conversation_id').notNull(),
    personId: uuid('person_id').notNull(),
    emoji: text('emoji').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('message_reactions_person_idx').on(t.churchId, t.messageId, t.personId, t.emoji),
    index('message_reactions_conversation_idx').on(t.churchId, t.conversationId),
  ],
);

/** A private conversation between two people; `notifyPersonId` is who has not read its last message. */
export const privateMessages = pgTable(
  'private_messages',
  {
    id: id(),
    churchId: churchId(),
    conversationId: uuid('conversation_id').notNull(),
    fromPersonId: uuid('from_person_id').notNull(),
    toPersonId: uuid('to_person_id').notNull(),
    notifyPersonId: uuid('notify_person_id'),
    deliveryMethod: text('delivery_method'),
    updatedAt: at('updated_at').notNull().defaultNow(),
    /** each side may take the conversation out of their inbox; a new message brings it back */
    hiddenByFrom: boolean('hidden_by_from').notNull().default(false),
    hiddenByTo: boolean('hidden_by_to').notNull().default(false),
  },
  (t) => [
    index('private_messages_from_idx').on(t.churchId, t.fromPersonId),
    index('private_messages_to_idx').on(t.churchId, t.toPersonId),
    uniqueIndex('private_messages_conversation_idx').on(t.churchId, t.conversationId),
    // the private conversations waiting for a person (the badge's `pmCount`)
    index('private_messages_notify_idx').on(t.churchId, t.notifyPersonId).where(sql`${t.notifyPersonId} is not null`),
  ],
);

export const notifications = pgTable(
  'notifications',
  {
    id: id(),
    churchId: churchId(),
    personId: uuid('person_id').notNull(),
    contentType: text('content_type'),
    contentId: text('content_id'),
    timeSent: at('time_sent').notNull().defaultNow(),
    isNew: boolean('is_new').notNull().default(true),
    message: text('message').notNull(),
    link: text('link'),
    deliveryMethod: text('delivery_method'),
    triggeredByPersonId: uuid('triggered_by_person_id'),
    /** when the daily digest carried it */
    emailedAt: at('emailed_at'),
  },
  (t) => [
    index('notifications_person_idx').on(t.churchId, t.personId, t.timeSent),
    index('notifications_unread_idx').on(t.isNew, t.emailedAt),
    // a person's unread notifications (the badge counts, marking read): only the unread ones are in it, with their
    // content type, so the counts read these entries alone (index-only), not every notification the person ever had
    index('notifications_person_unread_type_idx').on(t.churchId, t.personId, t.contentType).where(sql`${t.isNew}`),
  ],
);

export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    id: id(),
    churchId: churchId(),
    personId: uuid('person_id').notNull(),
    allowPush: boolean('allow_push').notNull().default(true),
    /** `never`, `individual` (at once) or `daily` (the digest) */
    emailFrequency: text('email_frequency').notNull().default('daily'),
    /** no push and no email at all (the notifications still show in the app) */
    masterMute: boolean('master_mute').notNull().default(false),
    /** `HH:MM` in `timeZone`: pushes wait for the end of this window */
    quietHoursStart: text('quiet_hours_start'),
    quietHoursEnd: text('quiet_hours_end'),
    /** an IANA time zone (`America/Chicago`) */
    timeZone: text('time_zone'),
  },
  (t) => [uniqueIndex('notification_preferences_person_idx').on(t.churchId, t.personId)],
);

/** Registered devices; anonymous ones (TV apps) have no church until they are paired. */
export const devices = pgTable(
  'devices',
  {
    id: id(),
    churchId: uuid('church_id'),
    personId: uuid('person_id'),
    appName: text('app_name'),
    deviceId: text('device_id'),
    label: text('label'),
    pushToken: text('push_token'),
    deviceInfo: text('device_info'),
    registrationDate: at('registration_date').notNull().defaultNow(),
    lastActiveDate: at('last_active_date').notNull().defaultNow(),
    pairingCode: text('pairing_code'),
    paired: boolean('paired').notNull().default(false),
  },
  (t) => [
    index('devices_church_idx').on(t.churchId, t.personId),
    index('devices_push_token_idx').on(t.pushToken),
    index('devices_device_id_idx').on(t.deviceId),
    uniqueIndex('devices_pairing_code_idx').on(t.pairingCode),
  ],
);

/**
 * A browser's Web Push subscription (B1App's installed web app): where the push service takes pushes for it
 * (`endpoint`, a capability address, unique: one browser's subscription belongs to the login that enrolled it last)
 * and the keys its pushes are encrypted to (`p256dh`, `auth`, RFC 8291).
 */
export const webPushSubscriptions = pgTable(
  'web_push_subscriptions',
  {
    id: id(),
    churchId: churchId(),
    personId: uuid('person_id').notNull(),
    endpoint: text('endpoint').notNull(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    appName: text('app_name'),
    deviceInfo: text('device_info'),
    registrationDate: at('registration_date').notNull().defaultNow(),
    lastActiveDate: at('last_active_date').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('web_push_subscriptions_endpoint_idx').on(t.endpoint), index('web_push_subscriptions_person_idx').on(t.churchId, t.personId)],
);

export const deviceContents = pgTable(
  'device_contents',
  {
    id: id(),
    churchId: churchId(),
    deviceId: uuid('device_id').notNull(),
    contentType: text('content_type').notNull(),
    contentId: text('content_id').notNull(),
  },
  (t) => [index('device_contents_device_idx').on(t.churchId, t.deviceId)],
);

/** SMS provider accounts; `apiSecret` is sealed with ENCRYPTION_KEY. */
export const textingProviders = pgTable(
  'texting_providers',
  {
    id: id(),
    churchId: churchId(),
    provider: text('provider').notNull().default('twilio'),
    name: text('name'),
    apiKey: text('api_key'),
    apiSecret: text('api_secret'),
    fromNumber: text('from_number'),
    enabled: boolean('enabled').notNull().default(true),
  },
  (t) => [index('texting_providers_church_idx').on(t.churchId)],
);

/** One group (or one person) text and its counts; recipients are delivery logs with `sentTextId`. */
export const sentTexts = pgTable(
  'sent_texts',
  {
    id: id(),
    churchId: churchId(),
    groupId: uuid('group_id'),
    recipientPersonId: uuid('recipient_person_id'),
    message: text('message').notNull(),
    senderPersonId: uuid('sender_person_id'),
    providerId: uuid('provider_id'),
    timeSent: at('time_sent').notNull().defaultNow(),
    totalMembers: integer('total_members').notNull().default(0),
    recipientCount: integer('recipient_count').notNull().default(0),
    successCount: integer('success_count').notNull().default(0),
    failCount: integer('fail_count').notNull().default(0),
    optedOutCount: integer('opted_out_count').notNull().default(0),
    noPhoneCount: integer('no_phone_count').notNull().default(0),
  },
  (t) => [index('sent_texts_church_idx').on(t.churchId, t.timeSent)],
);

export const emailTemplates = pgTable(
  'email_templates',
  {
    id: id(),
    churchId: churchId(),
    name: text('name').notNull(),
    subject: text('subject').notNull().default(''),
    htmlContent: text('html_content').notNull().default(''),
    category: text('category'),
    dateCreated: at('date_created').notNull().defaultNow(),
    dateModified: at('date_modified').notNull().defaultNow(),
  },
  (t) => [index('email_templates_church_idx').on(t.churchId)],
);

export const blockedIps = pgTable(
  'blocked_ips',
  {
    id: id(),
    churchId: churchId(),
    conversationId: uuid('conversation_id'),
    serviceId: uuid('service_id'),
    ipAddress: text('ip_address').notNull(),
  },
  (t) => [index('blocked_ips_service_idx').on(t.churchId, t.serviceId)],
);

/** Every delivery attempt of a push, SMS or email. */
export const deliveryLogs = pgTable(
  'delivery_logs',
  {
    id: id(),
    churchId: churchId(),
    personId: uuid('person_id'),
    contentType: text('content_type'),
    contentId: text('content_id'),
    channel: text('channel').notNull(),
    recipient: text('recipient'),
    provider: text('provider'),
    status: text('status').notNull(),
    providerMessageId: text('provider_message_id'),
    error: text('error'),
    sentTextId: uuid('sent_text_id'),
    attemptedAt: at('attempted_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('delivery_logs_church_idx').on(t.churchId, t.attemptedAt),
    index('delivery_logs_person_idx').on(t.churchId, t.personId, t.attemptedAt),
    index('delivery_logs_content_idx').on(t.churchId, t.contentType, t.contentId),
    index('delivery_logs_provider_msg_idx').on(t.providerMessageId),
    uniqueIndex('delivery_logs_sent_text_person_idx').on(t.sentTextId, t.personId),
  ],
);

/**
 * What each delivering job has done, by the job's identity and a recipient (`email:<address digest>`, `push:<person>`,
 * `socket:<person>`, `notify`): written when the job sends (in the transaction of what it hands on, where it hands
 * it on), read before, so a job run again (the outbox re-sends what Redis forgot) skips whoever it already served and
 * completes the rest. Kept two days (`purgeServed`).
 */
export const jobDeliveries = pgTable(
  'job_deliveries',
  {
    jobKey: text('job_key').notNull(),
    recipient: text('recipient').notNull(),
    servedAt: at('served_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.jobKey, t.recipient] }), index('job_deliveries_served_idx').on(t.servedAt)],
);

/** SMS consent keywords received (STOP/START/HELP): who, when, which keyword, which number. */
export const consentLogs = pgTable(
  'consent_logs',
  {
    id: id(),
    churchId: churchId(),
    phone: text('phone').notNull(),
    keyword: text('keyword').notNull(),
    action: text('action').notNull(),
    personIds: jsonb('person_ids').$type<string[]>().notNull().default([]),
    providerMessageId: text('provider_message_id'),
    receivedAt: at('received_at').notNull().defaultNow(),
  },
  (t) => [index('consent_logs_church_idx').on(t.churchId, t.receivedAt)],
);

/**
 * A reminder set on an event (content), a plan or a plan type's plans (doing), or a task (doing): when (minutes
 * before the day, at a local time of day), what, through which channels, to whom. One per entity (`entityId`), or
 * one per scope (`scopeId`: a plan type, inherited by each of its plans).
 */
export const reminderDefinitions = pgTable(
  'reminder_definitions',
  {
    id: id(),
    churchId: churchId(),
    /** `event`, `plan` or `task` */
    entityType: text('entity_type').notNull(),
    entityId: uuid('entity_id'),
    scopeId: uuid('scope_id'),
    /** minutes before the occurrence's day at `sendLocalTime`, comma-separated as the apps read them (`1440,0`) */
    offsets: text('offsets').notNull(),
    /** `HH:MM:SS` */
    sendLocalTime: text('send_local_time').notNull(),
    /** an IANA zone; without one, the church's */
    timeZone: text('time_zone'),
    message: text('message'),
    /** `push,email`, as the apps read them */
    channels: text('channels').notNull(),
    recipientMode: text('recipient_mode'),
    enabled: boolean('enabled').notNull().default(true),
    dateCreated: at('date_created').notNull().defaultNow(),
    dateModified: at('date_modified').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('reminder_definitions_entity_idx').on(t.churchId, t.entityType, t.entityId).where(sql`${t.entityId} is not null`),
    uniqueIndex('reminder_definitions_scope_idx').on(t.churchId, t.entityType, t.scopeId).where(sql`${t.scopeId} is not null`),
    // the hourly refresh walks every church's enabled reminders
    index('reminder_definitions_enabled_idx').on(t.enabled, t.churchId),
  ],
);

/**
 * One reminder to send: a definition's offset for one occurrence of one entity, due at `fireAt`. `pending` until the
 * scheduler claims it (`queued`, its send job enqueued in the same transaction), then `sent`, or `cancelled` (the
 * occurrence moved or went) or `missed` (claimed only after `expiresAt`, when it would be of no use). The key is
 * unique per definition: a reminder is sent once whatever the retries, refreshes and replicas.
 */
export const reminderOccurrences = pgTable(
  'reminder_occurrences',
  {
    id: id(),
    churchId: churchId(),
    definitionId: uuid('definition_id')
      .notNull()
      .references(() => reminderDefinitions.id, { onDelete: 'cascade' }),
    entityType: text('entity_type').notNull(),
    entityId: uuid('entity_id').notNull(),
    /** the occurrence: an event's start (ISO instant), a plan's service day or a task's due day (`YYYY-MM-DD`) */
    occurrence: text('occurrence').notNull(),
    offsetMinutes: integer('offset_minutes').notNull(),
    fireAt: at('fire_at').notNull(),
    /** after this a reminder is of no use (the event started, the day is over) */
    expiresAt: at('expires_at').notNull(),
    status: text('status').notNull().default('pending'),
    sentAt: at('sent_at'),
    recipientCount: integer('recipient_count'),
  },
  (t) => [
    uniqueIndex('reminder_occurrences_key_idx').on(t.churchId, t.definitionId, t.entityId, t.occurrence, t.offsetMinutes),
    // the scheduler's claim: what is due, across churches, only the pending rows in it
    index('reminder_occurrences_due_idx').on(t.fireAt).where(sql`${t.status} = 'pending'`),
  ],
);
