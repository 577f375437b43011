/** A limit of the audio family (characters, bytes, seconds) and how it is compared. */
export interface Limit {
  readonly max: number
  /** The limit itself is refused too (>= instead of >): how the faults of an off-by-one bend it. */
  readonly exclusive: boolean
}

export function exceeds(value: number, limit: Limit): boolean {
  return limit.exclusive ? value >= limit.max : value > limit.max
}
