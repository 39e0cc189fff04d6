import type { InternalClient } from '@church/common';

// What content asks of messaging. Messaging serves `POST /messaging/internal/blockedips/clear` (body one
// `{churchId, serviceId}` or a list of them, answer `{removed}`), but no contract for it exists in
// `@church/common` yet (a `messagingInternal.clearBlockedIps` would replace this typed call).

/** Clears the chat's blocked addresses of one streaming service (a saved or deleted service starts with none). */
export async function clearServiceBlockedIps(internal: InternalClient, churchId: string, serviceId: string, requestId?: string): Promise<void> {
  await internal.post<{ removed: number }>('messaging', '/messaging/internal/blockedips/clear', { churchId, serviceId }, { requestId });
}
