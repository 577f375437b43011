/**
 * Shared-header rules hold for every response of every family (Part 1 sections 4.1 and 9.4), so besides the
 * headers suite's own tests, the reporter audits every exchange a run recorded against them. Pure functions:
 * an exchange in, findings out.
 */
import { compareDays } from '../clock.ts'
import { resetProblem } from '../duration.ts'
import type { ExchangeExcerpt } from '../exchange.ts'
import { checkUuidV7 } from '../uuid.ts'

export const REQ = {
  svcRequestId: 'P1-4.1-svc-request-id',
  svcRequestIdUnique: 'P1-4.1-svc-request-id-unique',
  svcRequestIdTime: 'P1-4.1-svc-request-id-time',
  clientRequestId: 'P1-4.1-client-request-id',
  rateLimitHeaders: 'P1-4.1-ratelimit-headers',
  projectTokenHeaders: 'P1-4.1-project-token-headers',
  xRequestId: 'P1-9.4-x-request-id',
} as const

/** Part 1 section 9.4: the legacy header's migration window, both ends inclusive. */
const X_REQUEST_ID_FIRST_DAY = '2026-08-16'
const X_REQUEST_ID_LAST_DAY = '2026-10-15'

export const AUDIT_TOLERANCE = {
  svcIdClockSkewMs: 5 * 60_000, // the UUID v7 time may differ from ours by clock skew; 5 minutes is generous
}

interface Finding {
  requirement: string
  ok: boolean
  detail: string
}

const BUCKETS = ['requests', 'tokens'] as const
const NON_NEGATIVE_INTEGER = /^\d+$/

/** Problems with the x-ratelimit-* headers of one response; empty when they are all present and well-formed. */
export function rateLimitHeaderProblems(headers: Record<string, string>): string[] {
  return BUCKETS.flatMap((bucket) => bucketProblems(headers, bucket))
}

/** §4.1: the project-scoped bucket's headers, judged only where the target sends any of them. */
export function projectTokenHeaderProblems(headers: Record<string, string>): string[] | undefined {
  const names = ['limit', 'remaining', 'reset'].map((part) => `x-ratelimit-${part}-project-tokens`)
  if (!names.some((name) => headers[name] !== undefined)) return undefined
  return bucketProblems(headers, 'project-tokens')
}

function bucketProblems(headers: Record<string, string>, bucket: string): string[] {
  const problems: string[] = []
  const limit = headers[`x-ratelimit-limit-${bucket}`]
  const remaining = headers[`x-ratelimit-remaining-${bucket}`]
  const reset = headers[`x-ratelimit-reset-${bucket}`]
  if (limit === undefined) problems.push(`x-ratelimit-limit-${bucket} is missing`)
  else if (!NON_NEGATIVE_INTEGER.test(limit.trim()))
    problems.push(`x-ratelimit-limit-${bucket} "${limit}" is not a non-negative integer`)
  if (remaining === undefined) problems.push(`x-ratelimit-remaining-${bucket} is missing`)
  else if (!NON_NEGATIVE_INTEGER.test(remaining.trim()))
    problems.push(`x-ratelimit-remaining-${bucket} "${remaining}" is not a non-negative integer`)
  else if (limit !== undefined && NON_NEGATIVE_INTEGER.test(limit.trim()) && Number(remaining) > Number(limit)) {
    problems.push(`x-ratelimit-remaining-${bucket} ${remaining} is above x-ratelimit-limit-${bucket} ${limit}`)
  }
  if (reset === undefined) problems.push(`x-ratelimit-reset-${bucket} is missing`)
  else {
    const problem = resetProblem(reset)
    if (problem !== undefined) problems.push(`x-ratelimit-reset-${bucket} ${problem}`)
  }
  return problems
}

/** What the x-request-id rule expects at an as-of date. */
export function xRequestIdPhase(asOf: string): 'before' | 'during' | 'after' {
  if (compareDays(asOf, X_REQUEST_ID_FIRST_DAY) < 0) return 'before'
  if (compareDays(asOf, X_REQUEST_ID_LAST_DAY) <= 0) return 'during'
  return 'after'
}

export function xRequestIdFinding(
  svcId: string | undefined,
  xId: string | undefined,
  asOf: string,
): Finding | undefined {
  const phase = xRequestIdPhase(asOf)
  if (phase === 'before')
    return {
      requirement: REQ.xRequestId,
      ok: true,
      detail: `no rule before ${X_REQUEST_ID_FIRST_DAY}; x-request-id ${xId === undefined ? 'absent' : 'present'}`,
    }
  if (svcId === undefined) return undefined // nothing to compare with; the svc-request-id rule reports the absence
  if (phase === 'during') {
    if (xId === undefined)
      return {
        requirement: REQ.xRequestId,
        ok: false,
        detail: `x-request-id is missing at ${asOf} (within ${X_REQUEST_ID_FIRST_DAY}..${X_REQUEST_ID_LAST_DAY} it equals svc-request-id)`,
      }
    if (xId !== svcId)
      return {
        requirement: REQ.xRequestId,
        ok: false,
        detail: `x-request-id "${xId}" differs from svc-request-id "${svcId}" at ${asOf}`,
      }
    return { requirement: REQ.xRequestId, ok: true, detail: 'x-request-id equals svc-request-id' }
  }
  if (xId === svcId)
    return {
      requirement: REQ.xRequestId,
      ok: false,
      detail: `x-request-id still equals svc-request-id at ${asOf}, after its last day ${X_REQUEST_ID_LAST_DAY}`,
    }
  return {
    requirement: REQ.xRequestId,
    ok: true,
    detail:
      xId === undefined
        ? 'x-request-id absent'
        : 'x-request-id present with an unrelated value (an intermediary may add one)',
  }
}

/** A call with a key the target accepted: the rate-limit headers are due on it. */
function isAuthenticatedCall(ex: ExchangeExcerpt): boolean {
  return (
    ex.key !== null &&
    ex.key !== 'invalid' &&
    ex.key !== 'suspended' &&
    ex.status !== undefined &&
    ex.status !== 401 &&
    ex.status !== 403
  )
}

/**
 * When the call happened, by the target's clock where the response tells it (the HTTP Date header, to the
 * second), else by ours. The target's own clock is the fair measure of when it minted an id: a target that runs
 * at another date or with a skewed clock is not at fault for that.
 */
export function callWindow(ex: ExchangeExcerpt): { from: number; to: number; clock: string } {
  const serverDate = ex.responseHeaders?.date === undefined ? Number.NaN : Date.parse(ex.responseHeaders.date)
  if (!Number.isNaN(serverDate))
    return { from: serverDate - 1000, to: serverDate + 1000, clock: "the target's Date header" }
  return { from: ex.startedAt, to: ex.startedAt + ex.durationMs, clock: 'our clock' }
}

/** The service's headers are judged on the service's answers: not on another origin's (a storage host's). */
export function auditExchange(ex: ExchangeExcerpt, asOf: string): Finding[] {
  if (ex.status === undefined || ex.responseHeaders === undefined || ex.crossOrigin) return []
  const headers = ex.responseHeaders
  const svcId = headers['svc-request-id']
  const findings: Finding[] = []

  const v7 = checkUuidV7(svcId)
  findings.push({
    requirement: REQ.svcRequestId,
    ok: v7.ok,
    detail: v7.ok ? 'a UUID v7' : `svc-request-id ${v7.reason}`,
  })
  if (v7.ok) {
    const window = callWindow(ex)
    const ok =
      v7.timestampMs >= window.from - AUDIT_TOLERANCE.svcIdClockSkewMs &&
      v7.timestampMs <= window.to + AUDIT_TOLERANCE.svcIdClockSkewMs
    findings.push({
      requirement: REQ.svcRequestIdTime,
      ok,
      detail: ok
        ? 'UUID time near the call'
        : `UUID time ${new Date(v7.timestampMs).toISOString()} is more than 5 minutes from the call at ${new Date(window.from).toISOString()} (${window.clock})`,
    })
  }
  if (ex.clientRequestId !== undefined && svcId !== undefined) {
    const ok = svcId !== ex.clientRequestId
    findings.push({
      requirement: REQ.clientRequestId,
      ok,
      detail: ok
        ? 'svc-request-id is not the client id'
        : `svc-request-id echoes X-Client-Request-Id "${ex.clientRequestId}"`,
    })
  }
  if (isAuthenticatedCall(ex)) {
    const problems = rateLimitHeaderProblems(headers)
    findings.push({
      requirement: REQ.rateLimitHeaders,
      ok: problems.length === 0,
      detail: problems.length === 0 ? 'present and well-formed' : problems.join('; '),
    })
  }
  const project = projectTokenHeaderProblems(headers)
  if (project !== undefined) {
    findings.push({
      requirement: REQ.projectTokenHeaders,
      ok: project.length === 0,
      detail: project.length === 0 ? 'all three present and well-formed' : project.join('; '),
    })
  }
  const xFinding = xRequestIdFinding(svcId, headers['x-request-id'], asOf)
  if (xFinding !== undefined) findings.push(xFinding)
  return findings
}

/** svc-request-id values that more than one call received, with those calls. */
export function duplicateIds(exchanges: readonly ExchangeExcerpt[]): Map<string, ExchangeExcerpt[]> {
  const byId = new Map<string, ExchangeExcerpt[]>()
  for (const ex of exchanges) {
    const id = ex.responseHeaders?.['svc-request-id']
    if (id === undefined || id === '' || ex.crossOrigin) continue
    const list = byId.get(id) ?? []
    list.push(ex)
    byId.set(id, list)
  }
  return new Map([...byId].filter(([, list]) => list.length > 1))
}
