import type { FastifyPluginAsync } from 'fastify';
import pages from './pages';
import sections from './sections';
import elements from './elements';
import blocks from './blocks';
import links from './links';
import globalStyles from './global-styles';
import pageHistory from './page-history';
import posts from './posts';
import redirects from './redirects';
import settings from './settings';
import events from './events';
import eventExceptions from './event-exceptions';
import curatedCalendars from './curated-calendars';
import curatedEvents from './curated-events';
import roomsResources from './rooms-resources';
import eventBookings from './event-bookings';
import eventRequests from './event-requests';
import eventRsvps from './event-rsvps';
import eventOccurrences from './event-occurrences';
import { registrationRoutes } from './registrations';

/** The website half's route files, one per spec table. */
export const websiteRoutes: FastifyPluginAsync[] = [
  pages,
  sections,
  elements,
  blocks,
  links,
  globalStyles,
  pageHistory,
  posts,
  redirects,
  settings,
  events,
  eventExceptions,
  curatedCalendars,
  curatedEvents,
  roomsResources,
  eventBookings,
  eventRequests,
  eventRsvps,
  eventOccurrences,
  ...registrationRoutes,
];
