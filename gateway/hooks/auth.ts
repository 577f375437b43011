/**
 * Authentication (Part 1 sections 5 and 7). Runs before anything else a call costs: a call refused
 * here counts against no rate limit and belongs to no account.
 *
 * - Authorization: Bearer <key> everywhere; x-api-key only on routes that declare `apiKeyHeader`
 *   (the model endpoints), where it selects the alternate format. Bearer wins when both are sent.
 * - x-native-api-key only on routes that declare `nativeKeyHeader` (the native interface, Part 2 section
 *   5.2); elsewhere it is not a key (text:synthesize takes Bearer only, section 5.3).
 * - Missing or unknown key: 401. Suspended account: 403. Each in the dialect of its path family.
 * - Routes with `auth: 'none'` (/public/models) ignore keys; unknown routes identify a valid caller
 *   (for headers and transactions) but refuse no one, so that they answer 404.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Account } from '../account/accounts.ts'
import { isV1Path, type KeyForm, type RequestContext } from '../context.ts'
import { compatibleError, usageError } from '../errors.ts'
import type { GatewayState } from '../state.ts'
import { authRules } from './rules.ts'

interface PresentedKey {
  readonly value: string
  readonly form: KeyForm
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i

export function authHook(state: GatewayState) {
  const rules = authRules(state.faults)

  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const context = state.contexts.of(request)
    const config = request.routeOptions.config
    const policy = request.is404 ? 'optional' : (config.auth ?? 'required')
    if (policy === 'none' && rules.openPublicRoutes) return undefined

    const presented = presentedKey(
      request,
      config.apiKeyHeader === true && rules.takeApiKeyHeader,
      config.nativeKeyHeader === true ? state.nativeKeyHeader : undefined,
    )
    let account = presented ? state.accounts.byKey(presented.value) : undefined
    if (!presented && rules.serveKeylessV1 && isV1Path(context.path)) account = state.accounts.main()

    if (policy === 'optional') {
      if (account && !account.suspended) context.caller = { account, keyForm: presented?.form ?? 'bearer' }
      return undefined
    }
    if (!account) return refuseUnauthenticated(reply, context, presented === undefined)
    if (account.suspended && !suspensionIgnored(context)) return refuseSuspended(reply, context, account)
    if (!rules.bearerOnTransactions && request.method === 'GET' && request.routeOptions.url === '/user/v1/transactions')
      return refuseUnauthenticated(reply, context, false)
    context.caller = { account, keyForm: presented?.form ?? 'bearer' }
    return undefined
  }

  function suspensionIgnored(context: RequestContext): boolean {
    return context.family === 'usage' ? !rules.refuseSuspendedOnUsage : !rules.refuseSuspendedOnV1
  }

  function refuseUnauthenticated(reply: FastifyReply, context: RequestContext, missing: boolean): FastifyReply {
    const message = missing ? 'No API key provided: send Authorization: Bearer <key>.' : 'Invalid API key provided.'
    if (context.family === 'compatible') return reply.code(401).send(compatibleError(401, message))
    const body = rules.usage401Body ? usageError(401, message) : { error: { code: 'invalid_api_key', message } }
    return reply.code(401).send(body)
  }

  function refuseSuspended(reply: FastifyReply, context: RequestContext, account: Account): FastifyReply {
    const message = `Account ${account.id} is suspended.`
    if (context.family === 'usage') return reply.code(403).send(usageError(403, message))
    return reply.code(403).send(compatibleError(403, message, { code: 'account_suspended' }))
  }
}

/** `nativeKeyHeader`: the native key header's name, on the routes that take it. */
function presentedKey(
  request: FastifyRequest,
  acceptsApiKeyHeader: boolean,
  nativeKeyHeader: string | undefined,
): PresentedKey | undefined {
  const authorization = request.headers.authorization
  if (authorization !== undefined) {
    // A malformed Authorization header is a wrong key, not a missing one.
    return { value: BEARER.exec(authorization)?.[1] ?? '', form: 'bearer' }
  }
  const apiKey = request.headers['x-api-key']
  if (typeof apiKey === 'string' && acceptsApiKeyHeader) return { value: apiKey.trim(), form: 'x-api-key' }
  const nativeKey = nativeKeyHeader === undefined ? undefined : request.headers[nativeKeyHeader]
  if (typeof nativeKey === 'string') return { value: nativeKey.trim(), form: 'x-native-api-key' }
  return undefined
}
