import { z } from 'zod';
import { Id } from '@church/common';
import { ContentId, ContentType, Stamp, Text } from './common';

const Label = z.string().trim().max(1000);

export const Enroll = z.object({
  pushToken: z.string().trim().min(1).max(500).nullish(),
  deviceId: z.string().trim().min(1).max(200).nullish(),
  appName: z.string().trim().min(1).max(100),
  label: Label.nullish(),
  deviceInfo: z.string().max(5000).nullish(),
});

export const EnrollAnon = z.object({ appName: z.string().trim().min(1).max(100), deviceId: z.string().trim().max(200).nullish(), label: Label.nullish(), deviceInfo: z.string().max(5000).nullish() });

export const SaveDevice = z.object({
  id: Id.optional(),
  churchId: Id.nullish(),
  appName: z.string().trim().max(100).nullish(),
  deviceId: z.string().trim().max(200).nullish(),
  pushToken: z.string().trim().max(500).nullish(),
  label: Label.nullish(),
  deviceInfo: z.string().max(5000).nullish(),
});

/** A device as shown: its push token never leaves (it lets one push to the device), its pairing code only while unpaired. */
export const Device = z.object({
  id: z.string(),
  churchId: Text,
  personId: Text,
  appName: Text,
  deviceId: Text,
  label: Text,
  deviceInfo: Text,
  registrationDate: Stamp,
  lastActiveDate: Stamp,
  pairingCode: Text,
  paired: z.boolean(),
});

export const PairParams = z.object({ pairingCode: z.string().trim().min(1).max(10) });
export const PairQuery = z.object({ contentType: ContentType.optional(), contentId: ContentId.optional() });
/** `success` is what B1Admin's pairing screen reads; on success the device as it now is. */
export const PairAnswer = Device.partial().extend({ success: z.boolean() });
export const DeviceStatus = z.object({ paired: z.boolean(), contentType: Text, contentId: Text });

export const DeviceContent = z.object({ id: z.string(), churchId: z.string(), deviceId: z.string(), contentType: z.string(), contentId: z.string() });
export const SaveDeviceContent = z.object({ id: Id.optional(), deviceId: Id, contentType: ContentType, contentId: ContentId });
