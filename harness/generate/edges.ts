/**
 * Boundary values: both edges of every stated range and size, and every listed value, each of which the schema
 * allows. A map's edge is its largest valid form at once (the most members, each key and value as long as allowed),
 * as the hand-written edge checks send it.
 */
import type { Constraint, SchemaNode } from '../../common/request-schemas.ts'
import { describeValue, keysOf, mapNodes, text } from './edits.ts'
import type { ValueMaker } from './breaks.ts'
import { NUMBER_STEP, round2, typesOf } from './values.ts'

export interface Edge {
  keyword: string
  what: string
  value: unknown
}

function numericEdges(node: SchemaNode): Array<[string, number]> {
  const step = typesOf(node).includes('integer') && !typesOf(node).includes('number') ? 1 : NUMBER_STEP
  const out: Array<[string, number]> = []
  if (node.minimum !== undefined) out.push(['minimum', node.minimum])
  if (node.exclusiveMinimum !== undefined) out.push(['exclusiveMinimum', round2(node.exclusiveMinimum + step)])
  if (node.maximum !== undefined) out.push(['maximum', node.maximum])
  if (node.exclusiveMaximum !== undefined) out.push(['exclusiveMaximum', round2(node.exclusiveMaximum - step)])
  return out
}

/** The largest map the node allows: every size stated at its edge. */
function largestMap(node: SchemaNode, make: ValueMaker): Record<string, unknown> {
  const { keys, values } = mapNodes(node)
  const count = node.maxProperties ?? 1
  const value = (): unknown => (values.maxLength !== undefined ? text(values.maxLength, 'value') : make(values))
  return Object.fromEntries(keysOf(count, keys.maxLength).map((key) => [key, value()]))
}

function sizeEdges(node: SchemaNode, make: ValueMaker): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = []
  if (node.maxLength !== undefined) out.push(['maxLength', text(node.maxLength)])
  if (node.minLength !== undefined && node.minLength > 0) out.push(['minLength', text(node.minLength)])
  if (node.items !== undefined && node.maxItems !== undefined)
    out.push(['maxItems', Array.from({ length: node.maxItems }, () => make(node.items as SchemaNode))])
  if (node.items !== undefined && node.minItems !== undefined && node.minItems > 0)
    out.push(['minItems', Array.from({ length: node.minItems }, () => make(node.items as SchemaNode))])
  const { keys, values } = mapNodes(node)
  const isMap = typeof node.additionalProperties === 'object' || node.propertyNames !== undefined
  if (node.maxProperties !== undefined || (isMap && (keys.maxLength !== undefined || values.maxLength !== undefined)))
    out.push(['maxProperties', largestMap(node, make)])
  if (node.minProperties !== undefined && node.minProperties > 0)
    out.push([
      'minProperties',
      Object.fromEntries(keysOf(node.minProperties).map((key) => [key, make(mapNodes(node).values)])),
    ])
  return out
}

/** Every edge and listed value of one constraint; none for a required member. */
export function edgesOf(constraint: Constraint, textOnly: boolean, make: ValueMaker): Edge[] {
  const { node, location, field } = constraint
  if (constraint.keywords.includes('required')) return []
  const name = `${location}.${field}`
  const out: Edge[] = []
  for (const value of node.enum ?? []) out.push({ keyword: 'enum', what: `${name} ${describeValue(value)}`, value })
  if (!textOnly)
    for (const value of node.items?.enum ?? [])
      out.push({ keyword: 'enum', what: `${name} ${describeValue([value])}`, value: [value] })
  for (const [keyword, value] of numericEdges(node))
    out.push({ keyword, what: `${name} ${value}, at its ${keyword}`, value })
  for (const [keyword, value] of sizeEdges(node, make))
    if (!textOnly || typeof value === 'string')
      out.push({ keyword, what: `${name} ${describeValue(value)}, at its ${keyword}`, value })
  return out
}
