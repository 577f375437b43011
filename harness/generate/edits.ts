/**
 * Edits of a request at one field, and the few words a title gives a value: what breakers (breaks.ts) and edges
 * (edges.ts) apply to a valid request.
 */
import type { SchemaNode } from '../../common/request-schemas.ts'
import type { RequestValue } from './validate.ts'

export type Edit = { op: 'set'; value: unknown } | { op: 'delete' }

type Container = Record<string, unknown>

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The steps of a JSON pointer (RFC 6901). */
export function stepsOf(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
}

const isIndex = (step: string): boolean => /^\d+$/.test(step)

/**
 * The request with the value at a JSON pointer set or removed; undefined where it cannot be reached (an index past
 * an array the request holds, a member to remove that is not there). Missing parents of a set are made: an object,
 * or an array where the next step is an index.
 */
export function applyEdit(request: RequestValue, pointer: string, edit: Edit): RequestValue | undefined {
  const copy = structuredClone(request) as Record<string, unknown>
  const steps = stepsOf(pointer)
  const last = steps.pop() as string
  let container: Record<string, unknown> | unknown[] = copy
  for (const [i, step] of steps.entries()) {
    const next = (container as Record<string, unknown>)[step]
    if (typeof next !== 'object' || next === null) {
      if (edit.op === 'delete' || (Array.isArray(container) && !isIndex(step))) return undefined
      const made = isIndex(steps[i + 1] ?? last) ? [] : {}
      ;(container as Record<string, unknown>)[step] = made
      container = made
    } else container = next as Record<string, unknown> | unknown[]
  }
  if (Array.isArray(container) && (!isIndex(last) || Number(last) > container.length)) return undefined
  if (edit.op === 'set') {
    ;(container as Record<string, unknown>)[last] = edit.value
    return copy as RequestValue
  }
  if (Array.isArray(container) || !isContainer(container) || !(last in container)) return undefined
  delete container[last]
  return copy as RequestValue
}

/** A string of exactly `length` characters that reads as ours in a report. */
export function text(length: number, tag = 'gc'): string {
  return tag.padEnd(length, 'x').slice(0, length)
}

/** The node a map's values follow, and its keys. */
export function mapNodes(node: SchemaNode): { keys: SchemaNode; values: SchemaNode } {
  const values = typeof node.additionalProperties === 'object' ? node.additionalProperties : { type: 'string' }
  return { keys: node.propertyNames ?? {}, values }
}

/** `count` distinct keys of `keyLength` characters (or as short as distinct keys allow). */
export function keysOf(count: number, keyLength?: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const key = `k${i}`
    return keyLength === undefined || keyLength < key.length ? key : text(keyLength, `${key}-`)
  })
}

/** A few words for a value in a case's title: the value itself when short, its size otherwise. */
export function describeValue(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value)
  if (json.length <= 48) return json
  if (typeof value === 'string') return `a string of ${value.length} characters`
  if (Array.isArray(value)) return `an array of ${value.length} items`
  if (isContainer(value)) {
    const keys = Object.keys(value)
    const longestKey = Math.max(0, ...keys.map((k) => k.length))
    const longestValue = Math.max(0, ...Object.values(value).map((v) => (typeof v === 'string' ? v.length : 0)))
    return `an object of ${keys.length} members (keys up to ${longestKey}, string values up to ${longestValue} characters)`
  }
  return `${json.slice(0, 45)}...`
}
