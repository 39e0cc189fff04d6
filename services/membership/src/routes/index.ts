import type { FastifyPluginAsync } from 'fastify';
import users from './users';
import oauth from './oauth';
import churches from './churches';
import roles from './roles';
import userchurch from './userchurch';
import people from './people';
import households from './households';
import visibility from './visibility';
import query from './query';
import clientErrors from './client-errors';
import groups from './groups';
import groupMembers from './group-members';
import forms from './forms';
import formSubmissions from './form-submissions';
import questions from './questions';
import answers from './answers';
import memberPermissions from './member-permissions';
import settings from './settings';
import domains from './domains';
import internal from './internal';
import internalGroups from './internal-groups';
import internalPeople from './internal-people';
import auditLogs from './audit-logs';
import personFields from './person-fields';
import webhooks from './webhooks';
import apiKeys from './api-keys';
import gdpr from './gdpr';
import joinRequests from './join-requests';
import extras from './extras';
import lists from './lists';
import batches from './batches';

/** The membership module's route files, one per spec table. */
export const routes: FastifyPluginAsync[] = [
  users,
  oauth,
  churches,
  roles,
  userchurch,
  people,
  households,
  visibility,
  query,
  clientErrors,
  groups,
  groupMembers,
  forms,
  formSubmissions,
  questions,
  answers,
  memberPermissions,
  settings,
  domains,
  internal,
  internalGroups,
  internalPeople,
  auditLogs,
  personFields,
  webhooks,
  apiKeys,
  gdpr,
  joinRequests,
  extras,
  lists,
  batches,
];
