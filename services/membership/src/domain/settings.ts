import { randomUUID } from 'node:crypto';
import { badRequest, decodeDataUrl, type Db, type Storage } from '@church/common';
import { upsertSetting, type SettingRow } from '../repos/settings';
import { report as reportTo, type Reporter } from './report';

export interface SettingInput {
  id?: string;
  keyName: string;
  value?: string | null;
  public?: boolean;
}

/**
 * Saves a batch of settings in one transaction, upserting by keyName. A value sent as a base64 data URL
 * image (a logo, a favicon) is stored first through the storage and the setting keeps the file's URL.
 */
export async function saveSettings(db: Db, storage: Storage, churchId: string, items: SettingInput[], report?: Reporter): Promise<SettingRow[]> {
  const values = await Promise.all(
    items.map(async (item, i) => {
      const value = item.value ?? null;
      if (!value?.startsWith('data:')) return value;
      const file = decodeDataUrl(value);
      if (!file || !file.contentType.startsWith('image/') || !file.body.length) throw badRequest(`[${i}].value`, 'only base64 image data URLs can be uploaded');
      const safeKey = item.keyName.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80) || 'image';
      return storage.put(`${churchId}/settings/${safeKey}-${Date.now()}.${file.extension}`, file.body, file.contentType);
    }),
  );
  return db.transaction(async (tx) => {
    const out: SettingRow[] = [];
    for (const [i, item] of items.entries()) out.push(await upsertSetting(tx, churchId, { ...item, value: values[i]! }, randomUUID()));
    await reportTo(report, tx, out.map((s) => ({ churchId, entityType: 'setting', entityId: s.id, action: 'saved', after: { keyName: s.keyName, value: s.value, public: s.public } })));
    return out;
  });
}
