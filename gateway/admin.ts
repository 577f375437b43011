/**
 * Administration of the reference gateway, for self-tests and load profiles: not part of the reference
 * and not under /v1 or /user/v1, so no conformance suite depends on it.
 *
 *   GET  /admin/accounts                    the seeded accounts: id, tier, suspended, key id
 *   POST /admin/accounts/{account_id}/tier  body {"tier": 0..5}: sets the account's tier
 *
 * Section 8.2 says upgrades are automatic and immediate: a tier set here applies from the next call on
 * (limits, min_tier, extra.rate_limits.current, file limits), and counts already made in the open
 * windows stay. Only the admin key (ADMIN_KEY, printed by `npm run gateway`) is accepted, as Bearer.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ADMIN_KEY } from './account/accounts.ts'
import { GatewayError, invalidParameter } from './errors.ts'
import { TIERS, type Tier } from './limit-tables.ts'
import type { GatewayState } from './state.ts'

export function registerAdminRoutes(app: FastifyInstance, state: GatewayState): void {
  const requireAdmin = (request: FastifyRequest): void => {
    if (request.headers.authorization !== `Bearer ${ADMIN_KEY}`)
      throw new GatewayError(401, 'The admin routes take the admin key as a Bearer token.')
  }

  app.get('/admin/accounts', { config: { auth: 'none' } }, async (request) => {
    requireAdmin(request)
    return {
      data: state.accounts.accounts.map((account) => ({
        id: account.id,
        tier: account.tier,
        suspended: account.suspended,
        api_key_id: account.key.id,
      })),
    }
  })

  app.post<{ Params: { account_id: string } }>(
    '/admin/accounts/:account_id/tier',
    { config: { auth: 'none' } },
    async (request) => {
      requireAdmin(request)
      const account = state.accounts.byId(request.params.account_id)
      if (!account) throw new GatewayError(404, `No account '${request.params.account_id}'.`)
      const tier = (request.body as { tier?: unknown } | undefined)?.tier
      if (!TIERS.includes(tier as Tier)) throw invalidParameter('tier', 'tier must be an integer from 0 to 5.')
      account.tier = tier as Tier
      return { id: account.id, tier: account.tier }
    },
  )
}
