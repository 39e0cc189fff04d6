import { callInternal, messagingInternal, type InternalClient } from '@church/common';

/** Clears the chat's blocked addresses of one streaming service (a saved or deleted service starts with none). */
export async function clearServiceBlockedIps(internal: InternalClient, churchId: string, serviceId: string, requestId?: string): Promise<void> {
  await callInternal(internal, messagingInternal.clearBlockedIps, [{ churchId, serviceId }], { requestId });
}
