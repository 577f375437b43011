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

/**
 * The first step of the onRequest hook (server.ts): synchronous, as an async step would cost every call a promise and
 * a tick. Whether the call goes on, with its caller identified where it has one; a refusal has sent its answer, and
 * the hook then does not call done, which ends the call's hooks.
 */
export function authHook(state: GatewayState): (request: FastifyRequest, reply: FastifyReply) => boolean {
  const rules = authRules(state.faults)
  return admitted

  function admitted(request: FastifyRequest, reply: FastifyReply): boolean {
    const context = state.contexts.of(request)
    const config = request.routeOptions.config
    const policy = request.is404 ? 'optional' : (config.auth ?? 'required')
    if (policy === 'none' && rules.openPublicRoutes) return true

    const presented = presentedKey(
      request,
      config.apiKeyHeader === true && rules.takeApiKeyHeader,
      config.nativeKeyHeader === true ? state.nativeKeyHeader : undefined,
    )
    let account = presented ? state.accounts.byKey(presented.value) : undefined
    if (!presented && rules.serveKeylessV1 && isV1Path(context.path)) account = state.accounts.main()

    if (policy === 'optional') {
      if (account && !account.suspended) context.caller = { account, keyForm: presented?.form ?? 'bearer' }
      return true
    }
    if (!account) return refuseUnauthenticated(reply, context, presented === undefined)
    if (account.suspended && !suspensionIgnored(context)) return refuseSuspended(reply, context, account)
    if (!rules.bearerOnTransactions && request.method === 'GET' && request.routeOptions.url === '/user/v1/transactions')
      return refuseUnauthenticated(reply, context, false)
    context.caller = { account, keyForm: presented?.form ?? 'bearer' }
    return true
  }

  function suspensionIgnored(context: RequestContext): boolean {
    return context.family === 'usage' ? !rules.refuseSuspendedOnUsage : !rules.refuseSuspendedOnV1
  }

  /** Sends the 401; false: the call goes no further. */
  function refuseUnauthenticated(reply: FastifyReply, context: RequestContext, missing: boolean): false {
    const message = missing ? 'No API key provided: send Authorization: Bearer <key>.' : 'Invalid API key provided.'
    if (context.family === 'compatible') reply.code(401).send(compatibleError(401, message))
    else if (rules.usage401Body) reply.code(401).send(usageError(401, message))
    else reply.code(401).send({ error: { code: 'invalid_api_key', message } })
    return false
  }

  /** Sends the 403; false: the call goes no further. */
  function refuseSuspended(reply: FastifyReply, context: RequestContext, account: Account): false {
    const message = `Account ${account.id} is suspended.`
    if (context.family === 'usage') reply.code(403).send(usageError(403, message))
    else reply.code(403).send(compatibleError(403, message, { code: 'account_suspended' }))
    return false
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
