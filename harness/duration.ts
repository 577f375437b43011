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
