import type { Db } from '@church/common';
import {
  anonymizePerson,
  browsersOfPerson,
  consentLogsOf,
  devicesOfPerson,
  logsOfPersonAll,
  messagesWrittenBy,
  notesAbout,
  notificationsOf,
  pairsOf,
  preferencesOfPerson,
  reactionsBy,
  textsTo,
} from '../repos/gdpr';
import { endpointOrigin } from './web-push';

/** Person-note conversations are about the person they name (`contentId`). */
const NOTE_TYPES = ['person', 'personConfidential'];

/**
 * One person's records in messaging, by kind, for membership's GDPR export. Notes staff wrote about the person are
 * given as the ordinary notes (`person`), and notes the person wrote about others are not theirs to take; confidential notes stay with those who hold their permission, as in the
 * app (the church decides on disclosing them). Secrets of devices and browsers (push tokens, pairing codes,
 * endpoints, keys) are left out: a browser shows its push service only.
 */
export async function exportPerson(db: Db, churchId: string, personId: string): Promise<Record<string, unknown[]>> {
  const [messages, notes, reactions, privateMessages, notifications, notificationPreferences, devices, browsers, deliveryLogs, sentTexts, consentLogs] = await Promise.all([
    messagesWrittenBy(db, churchId, personId, NOTE_TYPES),
    notesAbout(db, churchId, personId, ['person']),
    reactionsBy(db, churchId, personId),
    pairsOf(db, churchId, personId),
    notificationsOf(db, churchId, personId),
    preferencesOfPerson(db, churchId, personId),
    devicesOfPerson(db, churchId, personId),
    browsersOfPerson(db, churchId, personId),
    logsOfPersonAll(db, churchId, personId),
    textsTo(db, churchId, personId),
    consentLogsOf(db, churchId, personId),
  ]);
  const webPushSubscriptions = browsers.map(({ endpoint, ...b }) => ({ ...b, pushService: endpointOrigin(endpoint) }));
  return { messages, notes, reactions, privateMessages, notifications, notificationPreferences, devices, webPushSubscriptions, deliveryLogs, sentTexts, consentLogs };
}

/**
 * Erasure in one transaction: the text of the person's messages and of the notes about them becomes empty (the rows
 * stay, so conversations keep their counts and order), notes they wrote about others lose their name only, notifications lose their text and link, delivery logs their
 * address and error, texts to the person alone their text; preferences, devices and browsers are deleted; consent
 * logs drop the person (and the phone when no one else shares it). Ids stay: membership keeps the person, anonymized.
 */
export function anonymize(db: Db, churchId: string, personId: string): Promise<Record<string, number>> {
  return db.transaction((tx) => anonymizePerson(tx, churchId, personId, NOTE_TYPES));
}
