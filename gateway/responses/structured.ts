/**
 * Values that fit a JSON Schema, for structured output (text.format json_schema) and tool-call arguments
 * (Part 1 §4.5 rules 2 and 5). The simulated model fills every property, so a strict schema (every property
 * required, additionalProperties false) is always met; words come from the simulated text, so the same request
 * at temperature 0 gives the same JSON.
 */

import { isObject } from '../../common/json.ts'

/** A deterministic source of words and numbers, drawn from a text in order. */
export interface Filler {
  word(): string
  number(): number
}

export function fillerFrom(text: string): Filler {
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? ['value']
  let i = 0
  return {
    word: () => {
      const word = words[i % words.length] as string
      i += 1
      return word
    },
    number: () => {
      i += 1
      return (words[i % words.length] as string).length
    },
  }
}

const MAX_DEPTH = 6 // a recursive schema must still end

export function valueFor(schema: unknown, filler: Filler, depth = 0): unknown {
  if (!isObject(schema) || depth > MAX_DEPTH) return filler.word()
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  if ('const' in schema) return schema.const
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key]
    if (Array.isArray(options) && options.length > 0) return valueFor(options[0], filler, depth + 1)
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  switch (type) {
    case 'object': {
      const properties = isObject(schema.properties) ? schema.properties : {}
      return Object.fromEntries(
        Object.entries(properties).map(([name, sub]) => [name, valueFor(sub, filler, depth + 1)]),
      )
    }
    case 'array':
      return [valueFor(schema.items, filler, depth + 1)]
    case 'integer':
      return filler.number()
    case 'number':
      return filler.number() + 0.5
    case 'boolean':
      return filler.number() % 2 === 0
    case 'null':
      return null
    default:
      return filler.word()
  }
}
