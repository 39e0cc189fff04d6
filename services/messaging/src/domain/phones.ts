/** Phone numbers compared by digits (E.164 without the plus, US numbers with their country code). */
export function normalizePhone(phone: string): string {
  const digits = phone.replace(/[^0-9]/g, '');
  return digits.length === 10 ? `1${digits}` : digits;
}

/** E.164 for sending. */
export function e164(phone: string): string {
  return `+${normalizePhone(phone)}`;
}
