import type { FastifyPluginAsync } from 'fastify';
import assignments from './assignments';
import automations from './automations';
import cards from './cards';
import blockoutDates from './blockout-dates';
import contentProviderAuths from './content-provider-auths';
import internal from './internal';
import planItemTimes from './plan-item-times';
import planItems from './plan-items';
import planTemplates from './plan-templates';
import planTypes from './plan-types';
import plans from './plans';
import positions from './positions';
import providerProxy from './provider-proxy';
import schedulingPreferences from './scheduling-preferences';
import tasks from './tasks';
import times from './times';
import workflowTriggers from './workflow-triggers';
import workflows from './workflows';

/** The doing module's route files, one line per spec table, then the tables the apps use besides the spec's. */
export const routes: FastifyPluginAsync[] = [
  plans,
  planTypes,
  planItems,
  positions,
  times,
  assignments,
  blockoutDates,
  tasks,
  automations,
  contentProviderAuths,
  providerProxy,
  planItemTimes,
  planTemplates,
  schedulingPreferences,
  // issue 36: workflows and their cards, triggers; the internal contracts
  workflows,
  workflowTriggers,
  cards,
  internal,
];
