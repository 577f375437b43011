/**
 * The gateway's notion of "now". Everything time-dependent (UUID v7 timestamps, transaction times,
 * rate-limit windows, the x-request-id migration dates) reads this one clock, so `--now` moves all of
 * them together.
 */

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/**
 * A clock that starts at `startMs` and then advances in real time. It is an offset, not a frozen
 * clock: rate-limit windows must still elapse while a `--now` run is serving requests.
 */
export function offsetClock(startMs: number, base: Clock = systemClock): Clock {
  const offset = startMs - base.now()
  return { now: () => base.now() + offset }
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/i

/**
 * Reads `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date-time. A date-time without a zone is taken as
 * UTC, because a simulator whose behaviour depends on the host's time zone would not be reproducible.
 * Returns undefined for anything else, including impossible dates such as 2026-02-30.
 */
export function parseInstant(text: string): number | undefined {
  const date = DATE_ONLY.exec(text)
  if (date) {
    const [, y, m, d] = date
    return isCalendarDate(Number(y), Number(m), Number(d)) ? Date.UTC(Number(y), Number(m) - 1, Number(d)) : undefined
  }
  const time = DATE_TIME.exec(text)
  if (!time) return undefined
  const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number]
  if (!isCalendarDate(y, m, d)) return undefined
  const ms = Date.parse(time[1] === undefined ? `${text}Z` : text)
  return Number.isNaN(ms) ? undefined : ms
}

/** True when y-m-d names a real day of the proleptic Gregorian calendar (leap years included). */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  const lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
  return day <= (lengths[month - 1] ?? 0)
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString()
}

/**
 * toIso with the text up to the seconds reused while calls fall in the same second: every call formats two
 * instants for its transaction, and building both from a Date on every call is costly under load.
 * Gives exactly toIso's text (fractions truncated toward zero, as Date does).
 */
export function isoFormatter(): (ms: number) => string {
  let second = Number.NaN
  let prefix = '' // "YYYY-MM-DDTHH:MM:SS."
  return (ms) => {
    const whole = Math.trunc(ms)
    const s = Math.floor(whole / 1000)
    if (s !== second) {
      prefix = toIso(s * 1000).slice(0, -4)
      second = s
    }
    const milli = whole - s * 1000
    return `${prefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`
  }
}
