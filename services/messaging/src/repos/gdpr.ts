import { and, asc, eq, inArray, isNotNull, ne, notInArray, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '@church/common';
import {
  consentLogs,
  conversations,
  deliveryLogs,
  deviceContents,
  devices,
  messageReactions,
  messages,
  notificationPreferences,
  notifications,
  privateMessages,
  sentTexts,
  webPushSubscriptions,
} from '../db/schema';

/**
 * One person's records in messaging (GDPR export and erasure). These run rarely: the person's messages are found
 * through the church's conversation index (no index by author on the chat's hot table).
 */

const msgFields = {
  id: messages.id,
  conversationId: messages.conversationId,
  contentType: conversations.contentType,
  contentId: conversations.contentId,
  displayName: messages.displayName,
  content: messages.content,
  messageType: messages.messageType,
  timeSent: messages.timeSent,
  timeUpdated: messages.timeUpdated,
};

/**
 * The messages the person wrote, with what their conversation is about; notes they wrote about other people
 * (`noteTypes`) are the church's records of those people and are left out.
 */
export async function messagesWrittenBy(db: DbOrTx, churchId: string, personId: string, noteTypes: string[]) {
  return db
    .select(msgFields)
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(and(eq(messages.churchId, churchId), eq(messages.personId, personId), notInArray(conversations.contentType, noteTypes)))
    .orderBy(asc(messages.timeSent));
}

/** The notes others wrote about the person, of the given note types (`person`, `personConfidential`). */
export async function notesAbout(db: DbOrTx, churchId: string, personId: string, types: string[]) {
  return db
    .select({ ...msgFields, personId: messages.personId })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(and(eq(conversations.churchId, churchId), inArray(conversations.contentType, types), eq(conversations.contentId, personId), eq(messages.churchId, churchId)))
    .orderBy(asc(messages.timeSent));
}

export async function reactionsBy(db: DbOrTx, churchId: string, personId: string) {
  return db
    .select({ id: messageReactions.id, messageId: messageReactions.messageId, conversationId: messageReactions.conversationId, emoji: messageReactions.emoji, createdAt: messageReactions.createdAt })
    .from(messageReactions)
    .where(and(eq(messageReactions.churchId, churchId), eq(messageReactions.personId, personId)));
}

export async function pairsOf(db: DbOrTx, churchId: string, personId: string) {
  return db
    .select()
    .from(privateMessages)
    .where(and(eq(privateMessages.churchId, churchId), or(eq(privateMessages.fromPersonId, personId), eq(privateMessages.toPersonId, personId))));
}

export async function notificationsOf(db: DbOrTx, churchId: string, personId: string) {
  return db.select().from(notifications).where(and(eq(notifications.churchId, churchId), eq(notifications.personId, personId))).orderBy(asc(notifications.timeSent));
}

export async function preferencesOfPerson(db: DbOrTx, churchId: string, personId: string) {
  return db.select().from(notificationPreferences).where(and(eq(notificationPreferences.churchId, churchId), eq(notificationPreferences.personId, personId)));
}

/** The person's devices, push token and pairing code left out (they are capabilities, not facts about the person). */
export async function devicesOfPerson(db: DbOrTx, churchId: string, personId: string) {
  return db
    .select({ id: devices.id, appName: devices.appName, deviceId: devices.deviceId, label: devices.label, deviceInfo: devices.deviceInfo, registrationDate: devices.registrationDate, lastActiveDate: devices.lastActiveDate, paired: devices.paired })
    .from(devices)
    .where(and(eq(devices.churchId, churchId), eq(devices.personId, personId)));
}

/** The person's browsers, endpoint and keys left out. */
export async function browsersOfPerson(db: DbOrTx, churchId: string, personId: string) {
  return db
    .select({ id: webPushSubscriptions.id, endpoint: webPushSubscriptions.endpoint, appName: webPushSubscriptions.appName, deviceInfo: webPushSubscriptions.deviceInfo, registrationDate: webPushSubscriptions.registrationDate, lastActiveDate: webPushSubscriptions.lastActiveDate })
    .from(webPushSubscriptions)
    .where(and(eq(webPushSubscriptions.churchId, churchId), eq(webPushSubscriptions.personId, personId)));
}

export async function logsOfPersonAll(db: DbOrTx, churchId: string, personId: string) {
  return db.select().from(deliveryLogs).where(and(eq(deliveryLogs.churchId, churchId), eq(deliveryLogs.personId, personId))).orderBy(asc(deliveryLogs.attemptedAt));
}

/** Texts sent to the person alone. */
export async function textsTo(db: DbOrTx, churchId: string, personId: string) {
  return db
    .select({ id: sentTexts.id, message: sentTexts.message, timeSent: sentTexts.timeSent, successCount: sentTexts.successCount, failCount: sentTexts.failCount })
    .from(sentTexts)
    .where(and(eq(sentTexts.churchId, churchId), eq(sentTexts.recipientPersonId, personId)));
}

// jsonb containment: the consent logs naming the person among the people of a phone number
const namesPerson = (personId: string) => sql`${consentLogs.personIds} @> ${JSON.stringify([personId])}::jsonb`;

export async function consentLogsOf(db: DbOrTx, churchId: string, personId: string) {
  return db
    .select({ id: consentLogs.id, phone: consentLogs.phone, keyword: consentLogs.keyword, action: consentLogs.action, receivedAt: consentLogs.receivedAt })
    .from(consentLogs)
    .where(and(eq(consentLogs.churchId, churchId), namesPerson(personId)));
}

const count = (rows: unknown[]) => rows.length;

/**
 * Erases what identifies the person, keeping every row that counts something (messages, notifications, logs, texts)
 * with its dates; each statement touches only what is not erased yet, so a second run changes nothing.
 */
export async function anonymizePerson(tx: DbOrTx, churchId: string, personId: string, noteTypes: string[]): Promise<Record<string, number>> {
  const noteConversations = (about?: string) =>
    tx
      .select({ id: conversations.id })
      .from(conversations)
      .where(and(eq(conversations.churchId, churchId), inArray(conversations.contentType, noteTypes), about ? eq(conversations.contentId, about) : undefined));
  const mine = and(eq(messages.churchId, churchId), eq(messages.personId, personId));
  const messagesChanged = await tx
    .update(messages)
    .set({ content: '', displayName: null })
    .where(and(mine, notInArray(messages.conversationId, noteConversations()), or(ne(messages.content, ''), isNotNull(messages.displayName))))
    .returning({ id: messages.id });
  // notes the person wrote about others stay the church's records of those people, unsigned
  const notesWritten = await tx
    .update(messages)
    .set({ displayName: null })
    .where(and(mine, inArray(messages.conversationId, noteConversations()), isNotNull(messages.displayName)))
    .returning({ id: messages.id });
  const notes = await tx
    .update(messages)
    .set({ content: '' })
    .where(and(eq(messages.churchId, churchId), inArray(messages.conversationId, noteConversations(personId)), ne(messages.content, '')))
    .returning({ id: messages.id });
  const own = await tx
    .update(notifications)
    .set({ message: '', link: null })
    .where(and(eq(notifications.churchId, churchId), eq(notifications.personId, personId), or(ne(notifications.message, ''), isNotNull(notifications.link))))
    .returning({ id: notifications.id });
  // others' notifications of what the person did read the person's name and words
  const triggered = await tx
    .update(notifications)
    .set({ message: '' })
    .where(and(eq(notifications.churchId, churchId), eq(notifications.triggeredByPersonId, personId), ne(notifications.personId, personId), ne(notifications.message, '')))
    .returning({ id: notifications.id });
  const prefs = await tx.delete(notificationPreferences).where(and(eq(notificationPreferences.churchId, churchId), eq(notificationPreferences.personId, personId))).returning({ id: notificationPreferences.id });
  const gone = await tx.delete(devices).where(and(eq(devices.churchId, churchId), eq(devices.personId, personId))).returning({ id: devices.id });
  if (gone.length) await tx.delete(deviceContents).where(and(eq(deviceContents.churchId, churchId), inArray(deviceContents.deviceId, gone.map((d) => d.id))));
  const browsers = await tx.delete(webPushSubscriptions).where(and(eq(webPushSubscriptions.churchId, churchId), eq(webPushSubscriptions.personId, personId))).returning({ id: webPushSubscriptions.id });
  const logs = await tx
    .update(deliveryLogs)
    .set({ recipient: null, error: null })
    .where(and(eq(deliveryLogs.churchId, churchId), eq(deliveryLogs.personId, personId), or(isNotNull(deliveryLogs.recipient), isNotNull(deliveryLogs.error))))
    .returning({ id: deliveryLogs.id });
  const texts = await tx
    .update(sentTexts)
    .set({ message: '' })
    .where(and(eq(sentTexts.churchId, churchId), eq(sentTexts.recipientPersonId, personId), ne(sentTexts.message, '')))
    .returning({ id: sentTexts.id });
  // A phone number shared with others stays for them (their opt-out depends on it); the person leaves its list.
  const consent = await tx
    .update(consentLogs)
    .set({
      personIds: sql`${consentLogs.personIds} - ${personId}::text`,
      phone: sql`case when jsonb_array_length(${consentLogs.personIds}) <= 1 then '' else ${consentLogs.phone} end`,
    })
    .where(and(eq(consentLogs.churchId, churchId), namesPerson(personId)))
    .returning({ id: consentLogs.id });
  return {
    messages: count(messagesChanged),
    notes: count(notes),
    notesWritten: count(notesWritten),
    notifications: count(own),
    notificationsTriggered: count(triggered),
    notificationPreferences: count(prefs),
    devices: count(gone),
    webPushSubscriptions: count(browsers),
    deliveryLogs: count(logs),
    sentTexts: count(texts),
    consentLogs: count(consent),
  };
}
