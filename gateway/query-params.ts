/**
 * Reading query parameters strictly. Integers are plain decimal digits only ("1.5", "+1", "1e2", ""
 * are refused rather than coerced), and a parameter given twice is refused rather than guessed at.
 * Every refusal is a 400 naming the parameter.
 */
import { invalidParameter } from './errors.ts'

export type RawQuery = Readonly<Record<string, unknown>>

export interface IntegerRange {
  readonly min: number
  readonly max: number
}

export function singleParam(raw: RawQuery, name: string): string | undefined {
  const value = raw[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw invalidParameter(name, `${name} must be given once`)
  return value
}

/**
 * The integer value of `name`, undefined when absent. Out of `range` it is refused, or, with `clamp`
 * (for faults that stop checking), pulled to the nearer bound.
 */
export function integerParam(raw: RawQuery, name: string, range?: IntegerRange, clamp = false): number | undefined {
  const text = singleParam(raw, name)
  if (text === undefined) return undefined
  const bounds = range ? ` from ${range.min} to ${range.max}` : ''
  if (!/^\d+$/.test(text))
    throw invalidParameter(name, `${name} must be an integer${bounds} in plain digits; got '${text}'`)
  const value = Number(text)
  if (!range || (value >= range.min && value <= range.max)) return value
  if (clamp) return Math.min(range.max, Math.max(range.min, value))
  throw invalidParameter(name, `${name} must be${bounds}; got ${text}`)
}
