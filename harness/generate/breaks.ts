/**
 * Negative values: for one stated constraint, the ways to break it and only it (a required member missing, a value
 * of another JSON type, the nearest value past a stated edge, a value outside a listed set, a string, array or map
 * one past its size). Past an edge the nearest value is taken, a hundredth for numbers: a gateway whose check is
 * off by a little is caught, and the value says which edge it tries.
 */
import type { Constraint, SchemaNode } from '../../common/request-schemas.ts'
import { describeValue, type Edit, keysOf, mapNodes, text } from './edits.ts'
import type { Place } from './validate.ts'
import { NUMBER_STEP, round2, typesOf } from './values.ts'

/**
 * One way to break a constraint: the keyword it breaks, the words for it, the edit and the JSON pointer it applies
 * at, and where the schema sees the break.
 */
export interface Broken {
  keyword: string
  what: string
  edit: Edit
  at: string
  place: Place
}

/** The JSON pointer of a field of the constraint's location (validate.ts pointerIn, bound to the schema). */
export type PointerOf = (field: string) => string

/** Makes one valid value of a node (for the members of a map or the items of an array past its size). */
export type ValueMaker = (node: SchemaNode) => unknown

/** Whether a location's values travel as text (query and path parameters, multipart form fields). */
export type TextOnly = boolean

const WRONG_TYPES: Array<[type: string, value: unknown]> = [
  ['string', 'gc-wrong-type'],
  ['number', 1.5],
  ['boolean', true],
  ['array', []],
  ['object', {}],
]

/** A value of a JSON type the node does not allow; on the wire as text, only a word where a number or boolean is due. */
export function wrongType(node: SchemaNode, textOnly: TextOnly): unknown {
  const types = typesOf(node)
  if (types.length === 0 || node.format === 'binary') return undefined
  if (textOnly) {
    if (types.includes('string')) return undefined
    if (types.includes('integer') || types.includes('number')) return 'gc-not-a-number'
    return types.includes('boolean') ? 'gc-not-a-boolean' : undefined
  }
  return WRONG_TYPES.find(([type]) => !types.includes(type))?.[1]
}

const isIntegerOnly = (node: SchemaNode): boolean =>
  typesOf(node).includes('integer') && !typesOf(node).includes('number')

/** A value outside a listed set of strings or numbers. */
function unlisted(values: readonly unknown[]): unknown {
  if (values.every((v) => typeof v === 'string')) return 'gc-unlisted'
  if (values.every((v) => typeof v === 'number')) return Math.max(...(values as number[])) + 1
  return undefined
}

/** The nearest values past the numeric edges a node states. */
function pastEdges(node: SchemaNode): Array<[keyword: string, value: number, words: string]> {
  const step = isIntegerOnly(node) ? 1 : NUMBER_STEP
  const out: Array<[string, number, string]> = []
  if (node.minimum !== undefined)
    out.push(['minimum', round2(node.minimum - step), `below its minimum ${node.minimum}`])
  if (node.exclusiveMinimum !== undefined)
    out.push(['exclusiveMinimum', node.exclusiveMinimum, `at its exclusive minimum ${node.exclusiveMinimum}`])
  if (node.maximum !== undefined) out.push(['maximum', round2(node.maximum + step), `past its maximum ${node.maximum}`])
  if (node.exclusiveMaximum !== undefined)
    out.push(['exclusiveMaximum', node.exclusiveMaximum, `at its exclusive maximum ${node.exclusiveMaximum}`])
  return out
}

/** A string the pattern does not match, within the node's length. */
function unmatched(pattern: string, maxLength?: number): string | undefined {
  let regex: RegExp
  try {
    regex = new RegExp(pattern, 'u')
  } catch {
    return undefined
  }
  return ['gc not matching!', '!', '0', 'x', ''].find(
    (s) => !regex.test(s) && (maxLength === undefined || s.length <= maxLength),
  )
}

/** A map of `count` members whose keys and values the node allows. */
function mapOf(node: SchemaNode, count: number, make: ValueMaker): Record<string, unknown> {
  const { values } = mapNodes(node)
  return Object.fromEntries(keysOf(count).map((key) => [key, make(values)]))
}

/** The breaks of the sizes and strings a node states (lengths, items, members, key and value lengths, patterns). */
function sizeBreaks(node: SchemaNode, make: ValueMaker): Array<[string, unknown, string]> {
  const out: Array<[string, unknown, string]> = []
  if (node.maxLength !== undefined)
    out.push(['maxLength', text(node.maxLength + 1), `one past its maxLength ${node.maxLength}`])
  if (node.minLength !== undefined && node.minLength > 0)
    out.push(['minLength', text(node.minLength - 1), `one short of its minLength ${node.minLength}`])
  if (node.pattern !== undefined) {
    const value = unmatched(node.pattern, node.maxLength)
    if (value !== undefined) out.push(['pattern', value, `not matching its pattern ${node.pattern}`])
  }
  if (node.items !== undefined && node.maxItems !== undefined) {
    const items = Array.from({ length: node.maxItems + 1 }, () => make(node.items as SchemaNode))
    out.push(['maxItems', items, `one past its maxItems ${node.maxItems}`])
  }
  if (node.items !== undefined && node.minItems !== undefined && node.minItems > 0) {
    const items = Array.from({ length: node.minItems - 1 }, () => make(node.items as SchemaNode))
    out.push(['minItems', items, `one short of its minItems ${node.minItems}`])
  }
  if (node.maxProperties !== undefined)
    out.push([
      'maxProperties',
      mapOf(node, node.maxProperties + 1, make),
      `one past its maxProperties ${node.maxProperties}`,
    ])
  if (node.minProperties !== undefined && node.minProperties > 0)
    out.push([
      'minProperties',
      mapOf(node, node.minProperties - 1, make),
      `one short of its minProperties ${node.minProperties}`,
    ])
  const { keys, values } = mapNodes(node)
  if (typeof node.additionalProperties === 'object' || node.propertyNames !== undefined) {
    if (keys.maxLength !== undefined)
      out.push([
        'propertyNames',
        { [text(keys.maxLength + 1, 'key')]: make(values) },
        `a key one past its maxLength ${keys.maxLength}`,
      ])
    if (values.maxLength !== undefined)
      out.push([
        'additionalProperties',
        { k: text(values.maxLength + 1, 'value') },
        `a value one past its maxLength ${values.maxLength}`,
      ])
  }
  return out
}

/** The values that break what a field's node states, beside its type. */
function valueBreaks(node: SchemaNode, textOnly: TextOnly, make: ValueMaker): Array<[string, unknown, string]> {
  const out: Array<[string, unknown, string]> = []
  if (node.enum !== undefined) {
    const value = unlisted(node.enum)
    if (value !== undefined && !node.enum.includes(value)) out.push(['enum', value, 'outside its listed values'])
  }
  if (!textOnly && node.items?.enum !== undefined) {
    const value = unlisted(node.items.enum)
    if (value !== undefined) out.push(['enum', [value], 'holding an item outside its listed values'])
  }
  if (typeof node.const === 'string') out.push(['const', `${node.const}-other`, `other than its value ${node.const}`])
  for (const [keyword, value, words] of pastEdges(node)) out.push([keyword, value, words])
  if (node.format === 'date' || node.format === 'date-time')
    out.push(['format', 'gc-not-a-date', `not in its format ${node.format}`])
  if (!textOnly) out.push(...sizeBreaks(node, make))
  else if (node.maxLength !== undefined)
    out.push(['maxLength', text(node.maxLength + 1), `one past its maxLength ${node.maxLength}`])
  return out
}

/** Every way to break one constraint, each on its own. */
export function breaksOf(constraint: Constraint, pointerOf: PointerOf, textOnly: TextOnly, make: ValueMaker): Broken[] {
  const { location, field, node } = constraint
  const name = `${location}.${field}`
  if (constraint.keywords.includes('required')) {
    const steps = field.split('.')
    const member = steps.pop() as string
    const parent = pointerOf(steps.join('.'))
    return [
      {
        keyword: 'required',
        what: `${name} missing (required)`,
        edit: { op: 'delete' },
        at: `${parent}/${member.replaceAll('~', '~0').replaceAll('/', '~1')}`,
        place: { pointer: parent, missing: member },
      },
    ]
  }
  const at = pointerOf(field)
  const place = { pointer: at }
  const out: Broken[] = []
  const wrong = wrongType(node, textOnly)
  if (wrong !== undefined)
    out.push({
      keyword: 'type',
      what: `${name} ${describeValue(wrong)}, not of its type ${typesOf(node).join(' or ')}`,
      edit: { op: 'set', value: wrong },
      at,
      place,
    })
  for (const [keyword, value, words] of valueBreaks(node, textOnly, make))
    out.push({ keyword, what: `${name} ${describeValue(value)}, ${words}`, edit: { op: 'set', value }, at, place })
  return out
}
