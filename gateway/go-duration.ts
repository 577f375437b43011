/**
 * Formats the x-ratelimit-reset-* durations the way Go's time.Duration prints them, which is the
 * form the reference's samples show ("1s", "6m0s", "20ms"):
 *
 * - under one second: whole milliseconds, `NNNms`;
 * - under one minute: seconds with at most three decimals and no trailing zeros, `1s`, `12.5s`;
 * - otherwise hours and minutes followed by seconds, `6m0s`, `1h0m0s`.
 *
 * Fractions of a millisecond round up, so a reset is never announced earlier than it happens.
 */
export function formatGoDuration(ms: number): string {
  const total = Math.max(0, Math.ceil(ms))
  if (total < 1000) return `${total}ms`
  const hours = Math.floor(total / 3_600_000)
  const minutes = Math.floor((total % 3_600_000) / 60_000)
  const seconds = formatSeconds(total % 60_000)
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`
  if (minutes > 0) return `${minutes}m${seconds}s`
  return `${seconds}s`
}

/** Whole milliseconds as seconds, at most three decimals and no trailing zeros; arithmetic, as it runs per response. */
function formatSeconds(ms: number): string {
  const whole = Math.floor(ms / 1000)
  let fraction = ms % 1000
  if (fraction === 0) return String(whole)
  let digits = 3
  while (fraction % 10 === 0) {
    fraction /= 10
    digits -= 1
  }
  return `${whole}.${String(fraction).padStart(digits, '0')}`
}
