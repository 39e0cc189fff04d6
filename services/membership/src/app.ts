import path from 'node:path';
import { changesReported, createService, groupMembershipChange, defineModule, emailJob, handle, personFieldChange, withSettings, type BaseConfig, type ServiceDeps } from '@church/common';
import { membershipSettings, type Config } from './config';
import { TAG_DESCRIPTIONS } from './docs';
import { changesJob } from './jobs/changes';
import { passwordReset, passwordResetJob } from './jobs/password-reset';
import { proxyConfigJob } from './jobs/proxy-config';
import { routes } from './routes';
import { deliver, webhookDelivery } from './domain/webhooks';
import { revocationsSince } from './domain/revocations';
import { exchangeApiKey } from './domain/api-keys';
import { changeMembership } from './domain/group-members';
import { changePersonField } from './domain/field-change';

/** What the membership deployable is made of; main, worker, migrate and tests all start from it. */
export const membership = defineModule<Config>({
  module: 'membership',
  tagDescriptions: TAG_DESCRIPTIONS,
  migrationsFolder: path.join(__dirname, '..', 'drizzle'),
  routes,
  jobs: (deps) => [
    emailJob('membership', () => deps.mailer),
    proxyConfigJob(deps),
    passwordResetJob(deps),
    changesJob(deps),
    handle(webhookDelivery, (data, ctx) => deliver(deps, data, ctx)),
    handle(groupMembershipChange, async (data) => void (await changeMembership(deps.db, { deps }, data))),
    handle(personFieldChange, async (data) => void (await changePersonField(deps, data))),
  ],
  owns: [changesReported, passwordReset, webhookDelivery, groupMembershipChange, personFieldChange],
  // Membership writes the stamps: it reads them from its own table, not over HTTP from itself.
  revocationSource: (deps) => (since) => revocationsSince(deps.db, since),
  // ...and exchanges an API key sent to one of its own routes itself.
  apiKeySource: (deps) => (key) => exchangeApiKey(deps, key),
});
export const definition = membership.definition;

/** Builds the membership app; tests pass a test database and other dependencies in `overrides`. */
export function buildApp(config: BaseConfig & Record<string, unknown>, overrides: Partial<ServiceDeps> = {}, options: { migrate?: boolean } = {}) {
  return createService(definition, withSettings(membershipSettings, config), { overrides, migrate: options.migrate, logger: config.LOG_LEVEL !== 'silent' });
}
