import type { FastifyPluginAsync } from 'fastify';
import churchLess from './church-less';
import conversations from './conversations';
import messages from './messages';
import privateMessages from './private-messages';
import notifications from './notifications';
import preferences from './preferences';
import connections from './connections';
import devices from './devices';
import deviceContents from './device-contents';
import texting from './texting';
import emailTemplates from './email-templates';
import blockedIps from './blocked-ips';
import deliveryLogs from './delivery-logs';
import reminders from './reminders';
import webPush from './web-push';
import gdpr from './gdpr';

/**
 * The messaging module's route files, one per spec table (connections also serves `/messaging/ws`), after the
 * guard against tokens of users without a church.
 */
export const routes: FastifyPluginAsync[] = [
  // first: its hooks reach every route below
  churchLess,
  conversations,
  messages,
  privateMessages,
  notifications,
  preferences,
  connections,
  devices,
  deviceContents,
  texting,
  emailTemplates,
  blockedIps,
  deliveryLogs,
  reminders,
  webPush,
  gdpr,
];
