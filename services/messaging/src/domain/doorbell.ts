/**
 * The apps register their `alerts` socket anonymously with the person's id (AppHelper's SocketHelper posts it
 * without a token), so that person's pushes must not reach it: it could be anyone's socket. Such a registration
 * listens at the person's doorbell instead (`alerts:<personId>`), which rings with the action alone (`data: {}`)
 * when a private message or a notification arrives: the apps then reload with their own token (counts, inbox), and a
 * stranger learns no content. A registration made with the person's own token receives the pushes themselves.
 */
export const doorbellKey = (personId: string) => `alerts:${personId}`;

/** The person pushes that ring the doorbell. */
export const DOORBELL_ACTIONS = new Set(['privateMessage', 'privateRoomAdded', 'notification']);
