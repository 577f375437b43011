/**
 * Limits an operator configures on one route (--route-limit), beside the reference's own: so many calls per
 * period per account on a method and path, which the catalogue does not announce (no extra.rate_limits, no table).
 * The load harness's --limit judges a target against such a limit; this gives it one to judge on loopback.
 */
import { OptionError } from './errors.ts'

export interface RouteLimit {
  /** As written, for messages. */
  text: string
  method: string
  /** Without a query; matched exactly. */
  path: string
  limit: number
  /** Real milliseconds, not --minute-ms: an operator states a limit in the time a client lives in. */
  periodMs: number
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

export const ROUTE_LIMIT_FORMAT =
  "'METHOD /path=N/PERIOD', e.g. 'POST /v1/chat/completions=30/10s' (PERIOD in ms, s, m or h)"

export function parseRouteLimit(text: string): RouteLimit {
  const match = /^\s*(GET|POST|DELETE|PUT|PATCH)\s+(\/[^\s=?]*)\s*=\s*(\d+)\s*\/\s*(\d*)(ms|s|m|h)\s*$/i.exec(text)
  const limit = Number(match?.[3])
  const periodMs = Number(match?.[4] || 1) * (UNIT_MS[match?.[5]?.toLowerCase() ?? ''] ?? Number.NaN)
  if (!match || !Number.isSafeInteger(limit) || limit < 1 || !(periodMs >= 1000 && periodMs <= 86_400_000))
    throw new OptionError(
      `--route-limit must be ${ROUTE_LIMIT_FORMAT}, with a limit of at least 1 and a period from 1s to 24h, got '${text}'`,
    )
  return { text: text.trim(), method: (match[1] as string).toUpperCase(), path: match[2] as string, limit, periodMs }
}
