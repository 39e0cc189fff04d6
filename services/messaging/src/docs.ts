/**
 * What each group of this module's routes is about, for the people who call the API: a tag per table of the spec,
 * shown in the module's OpenAPI document (routes the spec does not list are grouped by path there).
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Conversations: 'Conversations: chats of live streams and groups, notes on people, private threads.',
  Messages: 'The messages of a conversation.',
  'Private messages': 'Private conversations between two people.',
  Notifications: 'In-app notifications to a person, and how they are also pushed or emailed.',
  'Notification preferences': 'How and how often a person wants to be notified.',
  Connections: 'Live connections (WebSockets) watching a conversation.',
  Devices: 'A person’s phones and TVs for push notifications and pairing.',
  'Device contents': 'What a paired TV shows.',
  Texting: 'Text messages (SMS) to people and groups, and replies.',
  'Email templates': 'Reusable email templates.',
  'Blocked IPs': 'Addresses blocked from posting in a chat.',
  'Delivery logs': 'What was sent to whom by email, text and push, and how it went.',
};
