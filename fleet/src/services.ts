import type { FastifyInstance } from 'fastify';
import type { BaseConfig, ModuleName, ServiceDeps } from '@church/common';
import * as membership from '@church/membership/src/app';
import * as attendance from '@church/attendance/src/app';
import * as giving from '@church/giving/src/app';
import * as messaging from '@church/messaging/src/app';
import * as content from '@church/content/src/app';
import * as doing from '@church/doing/src/app';
import * as reporting from '@church/reporting/src/app';
import { configSchema as membershipConfig } from '@church/membership/src/config';
import { configSchema as attendanceConfig } from '@church/attendance/src/config';
import { configSchema as givingConfig } from '@church/giving/src/config';
import { configSchema as messagingConfig } from '@church/messaging/src/config';
import { configSchema as contentConfig } from '@church/content/src/config';
import { configSchema as doingConfig } from '@church/doing/src/config';
import { configSchema as reportingConfig } from '@church/reporting/src/config';
import type { z } from 'zod';

type Build = (config: never, overrides?: Partial<ServiceDeps>, options?: { migrate?: boolean }) => Promise<FastifyInstance>;

/** Each module's config schema and app factory, for running the fleet in one process. */
export const SERVICES: Record<ModuleName, { schema: z.ZodType<BaseConfig>; build: Build }> = {
  membership: { schema: membershipConfig, build: membership.buildApp as Build },
  attendance: { schema: attendanceConfig, build: attendance.buildApp as Build },
  giving: { schema: givingConfig, build: giving.buildApp as Build },
  messaging: { schema: messagingConfig, build: messaging.buildApp as Build },
  content: { schema: contentConfig, build: content.buildApp as Build },
  doing: { schema: doingConfig, build: doing.buildApp as Build },
  reporting: { schema: reportingConfig, build: reporting.buildApp as Build },
};
