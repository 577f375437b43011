/**
 * Limits the operator states (`--limit`, a workload file's `limits:`): a route, so many calls per period, the key
 * they apply to and, optionally, the bucket whose headers should announce them. A target that enforces a limit
 * it does not announce (no table of the reference, no extra.rate_limits) is judged against what was configured,
 * by the same verdicts as an announced one.
 */
import { parseDurationMs } from '../harness/duration.ts'
import { ConfigError } from '../harness/errors.ts'
import type { BucketName, KeySlotName, PhasePlan, PhaseVerdictId, RequestSpec, RouteKind } from './types.ts'

export interface StatedLimit {
  /** As written, for messages and reports. */
  text: string
  method: string
  /** Without a query. */
  path: string
  /** The route kind it was written as, when it was one (its calls are built as that kind's). */
  kind?: RouteKind
  limit: number
  periodMs: number
  slot: KeySlotName
  /** The bucket whose x-ratelimit-* headers announce it (section 4.1); absent: the headers are not judged. */
  headers?: BucketName
}

/** Where each route kind sends its calls (load/workload-plan.ts builds their bodies). */
export const KIND_ROUTES: Record<RouteKind, { method: string; path: string }> = {
  responses: { method: 'POST', path: '/v1/responses' },
  'responses-stream': { method: 'POST', path: '/v1/responses' },
  chat: { method: 'POST', path: '/v1/chat/completions' },
  'chat-stream': { method: 'POST', path: '/v1/chat/completions' },
  embeddings: { method: 'POST', path: '/v1/embeddings' },
  completions: { method: 'POST', path: '/v1/completions' },
  moderations: { method: 'POST', path: '/v1/moderations' },
  'models-list': { method: 'GET', path: '/v1/models' },
}

const SLOTS: readonly KeySlotName[] = ['main', 'tier0', 'tier1', 'tier2', 'tier3', 'tier4', 'tier5']
// A stated limit counts calls: the request bucket's headers are the ones that can announce it.
const BUCKETS: readonly BucketName[] = ['requests']
const METHODS = ['GET', 'POST', 'DELETE'] as const

export const STATED = {
  minPeriodMs: 1000,
  maxPeriodMs: 3_600_000, // a phase waits a whole period from rest: longer periods would not fit a run's cap
  maxLimit: 1_000_000,
}

export const LIMIT_FORMAT =
  "ROUTE=N/PERIOD[,key=SLOT][,headers=BUCKET], e.g. 'POST /v1/chat/completions=600/1m' or 'chat=30/10s,key=tier2,headers=requests'"

/** The one-line form a workload file's entry and --limit share. */
export interface StatedLimitInput {
  route: string
  limit: number
  period: string
  key?: string
  headers?: string
}

function fail(where: string, what: string): never {
  throw new ConfigError(`${where}: ${what}`)
}

function routeOf(route: string, where: string): Pick<StatedLimit, 'method' | 'path' | 'kind'> {
  const text = route.trim()
  if (text in KIND_ROUTES) return { ...KIND_ROUTES[text as RouteKind], kind: text as RouteKind }
  const match = /^([A-Za-z]+)\s+(\/\S*)$/.exec(text)
  const method = match?.[1]?.toUpperCase()
  if (!match || !(METHODS as readonly string[]).includes(method ?? ''))
    fail(
      where,
      `the route must be a method and a path (GET, POST or DELETE, e.g. POST /v1/chat/completions) or a route kind (${Object.keys(KIND_ROUTES).join(', ')}), got "${text}"`,
    )
  const path = (match[2] as string).split('?')[0] as string
  return { method: method as string, path }
}

/** A stated limit checked; `where` starts every message (the flag, or the file and pointer). */
export function statedLimit(input: StatedLimitInput, where: string, text: string): StatedLimit {
  const { method, path, kind } = routeOf(input.route, where)
  if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > STATED.maxLimit)
    fail(where, `the limit must be a whole number of calls from 1 to ${STATED.maxLimit}, got ${input.limit}`)
  const period = input.period.trim()
  const periodMs = parseDurationMs(/^\d/.test(period) ? period : `1${period}`)
  if (periodMs === undefined || periodMs < STATED.minPeriodMs || periodMs > STATED.maxPeriodMs)
    fail(where, `the period must be a duration from 1s to 1h, e.g. 1m or 10s, got "${input.period}"`)
  const slot = (input.key ?? 'main') as KeySlotName
  if (!SLOTS.includes(slot)) fail(where, `key must be one of ${SLOTS.join(', ')}, got "${input.key}"`)
  const headers = input.headers
  if (headers !== undefined && headers !== 'none' && !(BUCKETS as readonly string[]).includes(headers))
    fail(where, `headers must be one of ${BUCKETS.join(', ')} or none, got "${headers}"`)
  return {
    text,
    method,
    path,
    ...(kind ? { kind } : {}),
    limit: input.limit,
    periodMs,
    slot,
    ...(headers !== undefined && headers !== 'none' ? { headers: headers as BucketName } : {}),
  }
}

/** One --limit: `ROUTE=N/PERIOD[,key=SLOT][,headers=BUCKET]`. */
export function parseLimitFlag(raw: string): StatedLimit {
  const where = `--limit "${raw}"`
  const [head, ...options] = raw.split(',')
  const match = /^(.+)=\s*(\d+)\s*\/\s*(\S+)\s*$/.exec(head ?? '')
  if (!match) fail(where, `must be ${LIMIT_FORMAT}`)
  const input: StatedLimitInput = { route: match[1] as string, limit: Number(match[2]), period: match[3] as string }
  for (const option of options) {
    const [name, value, ...more] = option.split('=').map((s) => s.trim())
    if (value === undefined || value === '' || more.length > 0 || (name !== 'key' && name !== 'headers'))
      fail(where, `options after the limit are key=SLOT and headers=BUCKET, got "${option.trim()}"`)
    input[name] = value
  }
  return statedLimit(input, where, raw.trim())
}

/** Every route of a phase falls under the stated limit: its calls are the ones the limit counts. */
export function limitCovers(limit: StatedLimit, requests: readonly RequestSpec[]): boolean {
  return (
    requests.length > 0 &&
    requests.every((r) => r.method === limit.method && (r.path.split('?')[0] as string) === limit.path)
  )
}

/** Two stated limits on one route and key would judge one bucket twice, by two figures. */
export function checkDistinct(limits: readonly StatedLimit[], where = '--limit'): void {
  const seen = new Set<string>()
  for (const l of limits) {
    const id = `${l.method} ${l.path} ${l.slot}`
    if (seen.has(id))
      throw new ConfigError(
        `${where}: two limits are stated for ${l.method} ${l.path} with the ${l.slot} key; state one`,
      )
    seen.add(id)
  }
}

/** The limit stated for a route and key, if any. */
export function statedFor(
  limits: readonly StatedLimit[] | undefined,
  method: string,
  path: string,
  slot: KeySlotName,
): StatedLimit | undefined {
  return (limits ?? []).find((l) => l.method === method && l.path === path && l.slot === slot)
}

export function describeLimit(l: StatedLimit): string {
  const period = l.periodMs % 60_000 === 0 ? `${l.periodMs / 60_000} min` : `${l.periodMs / 1000} s`
  return `${l.limit} per ${period} on ${l.method} ${l.path} (${l.slot} key, stated)`
}

/** --limit first, then the file's entries on routes and keys it does not name. */
export function combineLimits(flags: readonly StatedLimit[], file: readonly StatedLimit[] = []): StatedLimit[] {
  const id = (l: StatedLimit): string => `${l.method} ${l.path} ${l.slot}`
  const named = new Set(flags.map(id))
  return [...flags, ...file.filter((l) => !named.has(id(l)))]
}

/** The stated limit on every route of an open-loop phase and its key, if any. */
export function limitFor(plan: PhasePlan, limits: readonly StatedLimit[]): StatedLimit | undefined {
  // A stated limit counts calls: a phase that judges a token bucket keeps its own.
  if (plan.rate === null || plan.engine === 'clients' || (plan.bucket !== null && plan.bucket !== 'requests'))
    return undefined
  return limits.find((l) => l.slot === plan.slot && limitCovers(l, plan.requests))
}

/**
 * A phase judged against a stated limit, as it would be against an announced one: from rest (so that the bounds
 * from rest hold), against the limit and its period, with the refusal verdict (section 7: 429) beside the
 * admission and recovery verdicts, and the headers verdict when the limit names the bucket that announces it.
 */
export function withStatedLimit(plan: PhasePlan, limits: readonly StatedLimit[]): PhasePlan {
  const l = limitFor(plan, limits)
  if (l === undefined) return plan
  const stated: PhaseVerdictId[] = plan.verdicts.includes('failed-calls')
    ? ['failed-calls', 'refusal']
    : ['admission', 'recovery', 'refusal']
  const verdicts = [
    ...new Set<PhaseVerdictId>([
      ...plan.verdicts.filter((v) => v !== 'headers'),
      ...stated,
      ...(l.headers ? (['headers'] as const) : []),
    ]),
  ]
  return {
    ...plan,
    description: `${plan.description}; judged against ${describeLimit(l)}`,
    bucket: l.headers ?? 'requests',
    expectedLimit: l.limit,
    periodMs: l.periodMs,
    stated: { text: l.text, headers: l.headers !== undefined },
    fromRest: true,
    verdicts,
  }
}
