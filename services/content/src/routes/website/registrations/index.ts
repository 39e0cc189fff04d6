import type { FastifyPluginAsync } from 'fastify';
import register from './register';
import records from './records';
import setup from './setup';
import publicEvent from './public-event';
import internal from './internal';

/** Event registrations (`/content/registrations`), the public registration page's event, and messaging's route. */
export const registrationRoutes: FastifyPluginAsync[] = [register, records, setup, publicEvent, internal];
