import type { z } from 'zod';
import { REMOTE, assertReferences, badRequest, type Actor } from '@church/common';
import type { DoingDeps } from '../deps';
import { providerOf } from '../providers';
import { linkProvider, toAuthItem } from '../repos/provider-auths';
import type { ExchangeBody } from '../schemas';
import { change, report } from './changes';
import type { MinistryAccess, Param } from './plans';

type Deps = Pick<DoingDeps, 'db' | 'internal' | 'queue' | 'module' | 'providers' | 'secrets'>;

/**
 * B1Admin's PKCE sign-in (ContentProviderAuthHelper.exchangeCode): the provider's code is exchanged here, where the
 * client secret is, and the tokens are kept for the ministry (one of the caller's, and one of the church's groups).
 * The provider is asked before the transaction opens.
 */
export async function exchangeCode(deps: Deps, actor: Actor, access: MinistryAccess, body: z.output<typeof ExchangeBody>, param: Param) {
  await access.ministry(body.ministryId);
  await assertReferences(deps, actor.churchId, [body], { ministryId: REMOTE.groups }, param);
  const provider = providerOf(deps.providers, body.providerId);
  if (!provider.exchangeCode) throw badRequest('providerId', `${provider.name} has no sign-in to exchange a code from`);
  const token = await provider.exchangeCode(body.code, body.codeVerifier, body.redirectUri);
  return deps.queue.transaction(deps.db, async (tx) => {
    const { before, row } = await linkProvider(tx, deps.secrets, actor.churchId, body.ministryId, provider.id, token);
    await report(deps, actor, [change('contentProviderAuth', before, row)], tx);
    return toAuthItem(row);
  });
}
