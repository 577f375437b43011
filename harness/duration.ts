/**
 * Durations in rate-limit reset headers (Part 1 section 4.1: "a number followed by s" in the sample; in the
 * wild `6m0s`, `20ms`, `1.5s`). Accepts one or more number+unit pairs, units h, m, s, ms, us, µs, ns.
 */

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 }
const PART = /(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/y

/** Milliseconds, or undefined when the text is not a duration. A bare number has no unit and is not one. */
export function parseDurationMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const value = text.trim()
  if (value === '') return undefined
  let total = 0
  PART.lastIndex = 0
  while (PART.lastIndex < value.length) {
    const start = PART.lastIndex
    const match = PART.exec(value)
    if (!match || match.index !== start) return undefined
    total += Number(match[1]) * (UNIT_MS[match[2] as string] ?? NaN)
  }
  return Number.isFinite(total) ? total : undefined
}

/**
 * The longest window a limit is measured over (Part 1 §8.3: per minute and per day): a reset further away than a
 * day is not a time until reset. A Unix time sent in the header reads as decades of bare seconds and is caught here.
 */
export const RESET_LIMIT_MS = 86_400_000

/**
 * A reset written in whole seconds may be rounded up to the next one: a second past its bucket's period is that
 * rounding, not a longer period. A reset with a fraction of a second gets none.
 */
export const WHOLE_SECONDS_ROUNDING_MS = 1000

/** The rounding a reset of `ms` may carry: a second where it is written in whole seconds, none otherwise. */
export const resetRoundingMs = (ms: number): number => (ms % 1000 === 0 ? WHOLE_SECONDS_ROUNDING_MS : 0)

const BARE_SECONDS = /^\d+(?:\.\d+)?$/

/** The forms a reset header is written in; §4.1's "a number followed by s" is a sample form, not the rule. */
export type ResetForm = 'duration' | 'seconds'

/**
 * An x-ratelimit-reset-* value (Part 1 §4.1: "time until reset"): a duration (`1s`, `6m0s`, `12.5s`, `20ms`) or a
 * bare number of seconds (`1`, `0.75`). Milliseconds and the form, or undefined when it is neither.
 */
export function parseReset(text: string | undefined): { ms: number; form: ResetForm } | undefined {
  if (text === undefined) return undefined
  const value = text.trim()
  if (BARE_SECONDS.test(value)) return { ms: Number(value) * 1000, form: 'seconds' }
  const ms = parseDurationMs(value)
  return ms === undefined ? undefined : { ms, form: 'duration' }
}

/**
 * Milliseconds until the reset a header announces, in either form; undefined when it does not parse or lies more
 * than a day ahead (a Unix time), so that pacing and retries never wait on a value that is no time until reset.
 */
export function parseResetMs(text: string | undefined): number | undefined {
  const ms = parseReset(text)?.ms
  return ms === undefined || ms > RESET_LIMIT_MS ? undefined : ms
}

/** Why a reset header is not a time until reset; undefined when it is one. */
export function resetProblem(text: string): string | undefined {
  const reset = parseReset(text)
  if (reset === undefined) return `"${text}" is not a time until reset: a duration such as 1s, 6m0s or 20ms, or seconds`
  if (reset.ms > RESET_LIMIT_MS)
    return `"${text}" is not a time until reset: ${reset.form === 'seconds' ? 'as seconds it' : 'it'} lies more than a day ahead, past the longest limit window (§8.3)`
  return undefined
}
