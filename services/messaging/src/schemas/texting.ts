import { z } from 'zod';
import { Id } from '@church/common';
import { Stamp, Text } from './common';
import { DeliveryLog } from './delivery-logs';

export const SaveProvider = z.object({
  id: Id.optional(),
  provider: z.string().trim().min(1).max(50).default('twilio'),
  name: z.string().trim().max(200).nullish(),
  apiKey: z.string().trim().min(1).max(200).optional(),
  /** sent in full to set it; the masked value read back (or nothing) keeps the stored one */
  apiSecret: z.string().trim().max(500).optional(),
  fromNumber: z.string().trim().max(40).nullish(),
  enabled: z.boolean().optional(),
});

/** A provider as shown: the key with its last 4 characters, the secret masked whole. */
export const Provider = z.object({
  id: z.string(),
  churchId: z.string(),
  provider: z.string(),
  name: Text,
  fromNumber: Text,
  enabled: z.boolean(),
  apiKey: Text,
  apiSecret: Text,
});

export const SentText = z.object({
  id: z.string(),
  churchId: z.string(),
  groupId: Text,
  recipientPersonId: Text,
  message: z.string(),
  senderPersonId: Text,
  providerId: Text,
  timeSent: Stamp,
  totalMembers: z.number(),
  recipientCount: z.number(),
  successCount: z.number(),
  failCount: z.number(),
  optedOutCount: z.number(),
  noPhoneCount: z.number(),
});
export const SentTextDetails = SentText.extend({ logs: z.array(DeliveryLog) });

export const TextMessage = z.string().trim().min(1).max(1600);
export const SendGroup = z.object({ groupId: Id, message: TextMessage });
export const SendPerson = z.object({ personId: Id, phoneNumber: z.string().trim().min(7).max(40).optional(), message: TextMessage });

/** The spec's group text result, with the sent text's id (its details). */
export const GroupTextResult = SentText.pick({ totalMembers: true, recipientCount: true, successCount: true, failCount: true, optedOutCount: true, noPhoneCount: true }).extend({
  sentTextId: z.string(),
});
export const TextPreview = z.object({ totalMembers: z.number(), eligibleCount: z.number(), optedOutCount: z.number(), noPhoneCount: z.number() });

/**
 * The church's texting balance as its provider reports it (Twilio: the account's balance and currency); `supported`
 * and `hasCredits` as B1Admin's texting settings read them.
 */
export const Credits = z.object({
  configured: z.boolean(),
  supported: z.boolean(),
  provider: z.string(),
  hasCredits: z.boolean(),
  balance: z.string(),
  currency: z.string(),
});
export const Providers = z.array(Provider);
export const SentTexts = z.array(SentText);
export const GroupParams = z.object({ groupId: Id });
export const ProviderParams = z.object({ providerId: Id });

/** What Twilio's callbacks are answered: TwiML that asks nothing more of it. */
export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
/** The callbacks' answer as declared: the TwiML text (`text/xml`). */
export const TwimlAnswer = z.string().meta({ description: 'TwiML (text/xml)' });
