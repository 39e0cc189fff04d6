import type { FastifyPluginAsync } from 'fastify';
import assignments from './assignments';
import automations from './automations';
import blockoutDates from './blockout-dates';
import contentProviderAuths from './content-provider-auths';
import planItems from './plan-items';
import planTypes from './plan-types';
import plans from './plans';
import positions from './positions';
import providerProxy from './provider-proxy';
import tasks from './tasks';
import times from './times';

/** The doing module's route files, one line per spec table. */
export const routes: FastifyPluginAsync[] = [plans, planTypes, planItems, positions, times, assignments, blockoutDates, tasks, automations, contentProviderAuths, providerProxy];
