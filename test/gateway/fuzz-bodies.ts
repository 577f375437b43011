/**
 * Generated request bodies for the gateway fuzz (fast-check arbitraries). Each case starts from a valid request
 * of the route (fuzz-routes.ts) and breaks it: values of the wrong type, missing fields, edge values, unknown and
 * prototype-polluting keys, huge strings, deep nesting, malformed JSON; for multipart routes, fields and file
 * parts dropped, repeated, renamed or oversized, and the form itself malformed (truncated, wrong boundary, bare
 * LF line ends). Mutations name their target by a number taken modulo what the body has, so that fast-check can
 * shrink a failing case towards the valid seed.
 */
import fc from 'fast-check'
import type { Json } from '../../common/json.ts'
import type { FilePartSeed, Seed } from './fuzz-routes.ts'

/** One request of the fuzz: where it goes, its body as sent, and a short account of it for failure messages. */
export interface FuzzCase {
  url: string
  contentType: string | undefined
  payload: Buffer
  note: string
}

/** Strings that have broken parsers and validators before: empties, controls, surrogates, direction marks. */
const EDGE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '🙂🙂',
  'a\u202eb',
  '\r\n\r\n',
  '../../etc/passwd',
  '%00',
  '${x}',
  'NaN',
  '-1',
  '1e309',
  'true',
  'null',
  '__proto__',
  'x'.repeat(300),
]
/** Numbers at the edges of every range a route checks: signs, zero, fractions, past 2^53, near the double's end. */
const EDGE_NUMBERS: readonly number[] = [
  0,
  -1,
  1,
  0.5,
  -0.5,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  1e308,
  -1e308,
  5e-324,
  4001,
  1e21,
]

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const
/** Keys that routes read, tried as unknown keys in every object of a body. */
const KNOWN_KEYS = [
  'model',
  'input',
  'messages',
  'stream',
  'n',
  'tools',
  'tool_choice',
  'text',
  'moderation',
  'background',
  'store',
  'previous_response_id',
  'max_output_tokens',
  'max_tokens',
  'response_format',
  'stream_format',
  'contents',
  'parts',
  'role',
  'generationConfig',
  'speechConfig',
  'query',
  'document',
  'pages',
  'image',
  'seconds',
  'size',
  'ids',
  'tier',
  'purpose',
  'file',
  'input_reference',
  'safety_identifier',
  'timestamp_granularities[]',
  'chunking_strategy',
  'include[]',
] as const

type Mutation =
  | { kind: 'wrong-type'; at: number; value: Json }
  | { kind: 'edge'; at: number; value: Json }
  | { kind: 'drop'; at: number }
  | { kind: 'extra'; at: number; key: string; value: Json }
  | { kind: 'huge'; at: number; length: number; unit: string }
  | { kind: 'deep'; at: number; depth: number; shape: 'array' | 'object' }

const smallJson = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>
const anyValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 24, unit: 'binary' }),
  fc.array(smallJson, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), smallJson, { maxKeys: 3 }),
)
const edgeValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom(...EDGE_STRINGS),
  fc.constantFrom(...EDGE_NUMBERS),
  fc.constantFrom<Json>([], {}, [null], [[]], [{}], null, true, false),
)
const key = fc.oneof(
  fc.constantFrom(...PROTO_KEYS),
  fc.constantFrom(...KNOWN_KEYS),
  fc.string({ maxLength: 12, unit: 'binary' }),
)
/** Sizes around the limits that matter: a field's 4000 bytes, busboy's 64 KiB field size, Fastify's 1 MiB body limit. */
const hugeLength = fc.constantFrom(4_001, 70_000, 300_000, 1_100_000)
const hugeUnit = fc.constantFrom('x', 'é', '🙂', '\u0000', ' ', '\\', '"')

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('wrong-type' as const), at: fc.nat(), value: anyValue }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('edge' as const), at: fc.nat(), value: edgeValue }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('extra' as const), at: fc.nat(), key, value: anyValue }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('huge' as const), at: fc.nat(), length: hugeLength, unit: hugeUnit }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('deep' as const),
      at: fc.nat(),
      depth: fc.integer({ min: 64, max: 20_000 }),
      shape: fc.constantFrom('array' as const, 'object' as const),
    }),
  },
)

type Path = Array<string | number>

/** Every node of a JSON value as its path from the root (the root itself first). */
function pathsOf(value: Json, at: Path = [], out: Path[] = []): Path[] {
  out.push(at)
  if (Array.isArray(value))
    value.forEach((item, i) => {
      pathsOf(item, [...at, i], out)
    })
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out)
  return out
}

function getAt(root: Json, path: Path): Json {
  let node = root
  for (const step of path) node = (node as Record<string | number, Json>)[step] as Json
  return node
}

/** Sets (or with `undefined`, removes) the node at a non-empty path; own properties only, whatever the key. */
function setAt(root: Json, path: Path, value: Json | undefined): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, Json> | Json[]
  const last = path.at(-1) as string | number
  if (Array.isArray(parent)) {
    if (value === undefined) parent.splice(last as number, 1)
    else parent[last as number] = value
  } else if (value === undefined) {
    delete parent[last]
  } else {
    // defineProperty, so that a key such as "__proto__" becomes an own property that JSON.stringify writes out.
    Object.defineProperty(parent, last, { value, enumerable: true, writable: true, configurable: true })
  }
}

/** A JSON text of the seed after the mutations; deep nesting goes in as raw text after stringify. */
function mutateJson(seed: Json, mutations: readonly Mutation[]): { text: string; note: string } {
  let body = JSON.parse(JSON.stringify(seed)) as Json
  const raw = new Map<string, string>()
  const notes: string[] = []
  for (const m of mutations) {
    const paths = pathsOf(body)
    const path = paths[m.at % paths.length] as Path
    const where = `/${path.join('/')}`
    const put = (value: Json): void => {
      if (path.length === 0) body = value
      else setAt(body, path, value)
    }
    switch (m.kind) {
      case 'wrong-type':
      case 'edge':
        put(m.value)
        notes.push(`${m.kind} ${where}=${JSON.stringify(m.value).slice(0, 40)}`)
        break
      case 'drop': {
        const droppable = paths.filter((p) => p.length > 0)
        const target = droppable[m.at % Math.max(1, droppable.length)]
        if (target !== undefined) {
          setAt(body, target, undefined)
          notes.push(`drop /${target.join('/')}`)
        }
        break
      }
      case 'extra': {
        const objects = paths.filter((p) => {
          const node = getAt(body, p)
          return node !== null && typeof node === 'object' && !Array.isArray(node)
        })
        const target = objects[m.at % Math.max(1, objects.length)]
        if (target !== undefined) {
          const node = getAt(body, target) as Record<string, Json>
          Object.defineProperty(node, m.key, { value: m.value, enumerable: true, writable: true, configurable: true })
          notes.push(`extra /${[...target, m.key].join('/')}=${JSON.stringify(m.value).slice(0, 40)}`)
        }
        break
      }
      case 'huge':
        put(m.unit.repeat(Math.ceil(m.length / m.unit.length)))
        notes.push(`huge ${where} (${m.length} × ${JSON.stringify(m.unit)})`)
        break
      case 'deep': {
        const token = `\u0000deep-${raw.size}\u0000`
        const text =
          m.shape === 'array'
            ? `${'['.repeat(m.depth)}${']'.repeat(m.depth)}`
            : `${'{"a":'.repeat(m.depth)}1${'}'.repeat(m.depth)}`
        raw.set(JSON.stringify(token), text)
        put(token)
        notes.push(`deep ${where} (${m.depth} ${m.shape}s)`)
        break
      }
    }
  }
  let text = JSON.stringify(body) ?? 'null'
  for (const [token, replacement] of raw) text = text.replace(token, replacement)
  return { text, note: notes.join('; ') }
}

/** The seed with one node replaced by nesting 10,000 deep, for every node in turn: a sweep, not a sample. */
export function deepAtEveryNode(seed: Json): Array<{ text: string; note: string }> {
  return pathsOf(seed).flatMap((_, at) =>
    (['array', 'object'] as const).map((shape) => mutateJson(seed, [{ kind: 'deep', at, depth: 10_000, shape }])),
  )
}

/** Ways a JSON text is not JSON: cut short, trailing garbage, comments, single quotes, a bare value. */
const malformedJson = fc.record({
  cut: fc.double({ min: 0, max: 1, noNaN: true }),
  kind: fc.constantFrom(
    'truncate',
    'trailing',
    'comment',
    'single-quotes',
    'nan',
    'empty',
    'whitespace',
    'duplicate-keys',
  ),
})

function breakJson(text: string, how: { cut: number; kind: string }): string {
  switch (how.kind) {
    case 'truncate':
      return text.slice(0, Math.floor(text.length * how.cut))
    case 'trailing':
      return `${text} }{`
    case 'comment':
      return `/* c */ ${text}`
    case 'single-quotes':
      return text.replaceAll('"', "'")
    case 'nan':
      return text.startsWith('{') ? `{"n": NaN, ${text.slice(1)}` : 'NaN'
    case 'empty':
      return ''
    case 'whitespace':
      return ' \r\n\t '
    default:
      // Duplicate keys: JSON.parse keeps the last; the first value of each key is a wrong type.
      return text.startsWith('{') && text.length > 2 ? text.replace(/^\{"([^"]+)":/, '{"$1": [1, {}], "$1":') : text
  }
}

/** JSON cases of one seed: mutated (most), any JSON value at all, or text that is not JSON. */
function jsonCases(seed: Json): fc.Arbitrary<{ text: string; note: string }> {
  return fc.oneof(
    {
      weight: 8,
      arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }).map((mutations) => mutateJson(seed, mutations)),
    },
    {
      weight: 1,
      arbitrary: (fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json>).map((value) => ({
        text: JSON.stringify(value) ?? 'null',
        note: 'any JSON value',
      })),
    },
    {
      weight: 1,
      arbitrary: malformedJson.map((how) => ({
        text: breakJson(JSON.stringify(seed), how),
        note: `malformed JSON (${how.kind})`,
      })),
    },
  )
}

// ---- multipart ----

/** One part of a form as the fuzz builds it: a text field, or a file when it has a filename. */
interface Part {
  name: string
  filename?: string
  contentType?: string
  content: Buffer
}

type FormMutation =
  | { kind: 'drop'; at: number }
  | { kind: 'value'; at: number; value: string }
  | { kind: 'huge'; at: number; length: number }
  | { kind: 'repeat'; at: number }
  | { kind: 'extra'; name: string; value: string; file: boolean }
  | { kind: 'deep-json'; at: number }
  | { kind: 'rename'; at: number; name: string }
  | { kind: 'file-bytes'; bytes: Uint8Array }
  | { kind: 'as-field'; at: number }
  | { kind: 'as-file'; at: number; filename: string }
  | { kind: 'file-meta'; filename: string; contentType: string }

/** Breaks the form itself rather than its parts. */
type FormDamage =
  | { kind: 'none' }
  | { kind: 'truncate'; cut: number }
  | { kind: 'boundary-mismatch' }
  | { kind: 'no-boundary' }
  | { kind: 'bare-lf' }
  | { kind: 'no-close' }
  | { kind: 'bad-header'; at: number }
  | { kind: 'preamble' }
  | { kind: 'long-boundary' }
  | { kind: 'quoted-boundary' }
  | { kind: 'empty' }

/** JSON nested 25,000 deep in a form field (under busboy's 64 KiB field size): fields that hold JSON parse it. */
const DEEP_FIELD = `{"anchor":${'['.repeat(25_000)}${']'.repeat(25_000)},"type":"auto","seconds":3600}`
const fieldValue = fc.oneof(
  fc.constantFrom(...EDGE_STRINGS),
  fc.string({ maxLength: 32, unit: 'binary' }),
  fc.constantFrom(
    'gw-transcribe-1',
    'gw-transcribe-2-diarize',
    'json',
    'verbose_json',
    'srt',
    'user_data',
    'batch',
    'vidA-2',
    '8',
    '12',
    '1920x1080',
    '[1,2]',
    '{"anchor":"created_at","seconds":3600}',
    DEEP_FIELD,
  ),
)
const partName = fc.oneof(
  fc.constantFrom(...PROTO_KEYS),
  fc.constantFrom(...KNOWN_KEYS),
  fc.string({ maxLength: 12, unit: 'binary' }),
)

const formMutation: fc.Arbitrary<FormMutation> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('value' as const), at: fc.nat(), value: fieldValue }),
  fc.record({ kind: fc.constant('huge' as const), at: fc.nat(), length: fc.constantFrom(70_000, 300_000) }),
  fc.record({ kind: fc.constant('repeat' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('deep-json' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('extra' as const), name: partName, value: fieldValue, file: fc.boolean() }),
  fc.record({ kind: fc.constant('rename' as const), at: fc.nat(), name: partName }),
  fc.record({ kind: fc.constant('file-bytes' as const), bytes: fc.uint8Array({ maxLength: 600 }) }),
  fc.record({ kind: fc.constant('as-field' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('as-file' as const), at: fc.nat(), filename: fc.string({ maxLength: 12 }) }),
  fc.record({
    kind: fc.constant('file-meta' as const),
    filename: fc.oneof(fc.constantFrom(...EDGE_STRINGS), fc.string({ maxLength: 16, unit: 'binary' })),
    contentType: fc.constantFrom(
      '',
      'image/png',
      'audio/wav',
      'application/json',
      'text/plain; charset=utf-16',
      'x',
      'multipart/form-data; boundary=inner',
    ),
  }),
)

const formDamage: fc.Arbitrary<FormDamage> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('truncate' as const), cut: fc.double({ min: 0, max: 1, noNaN: true }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bad-header' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<FormDamage>(
      { kind: 'boundary-mismatch' },
      { kind: 'no-boundary' },
      { kind: 'bare-lf' },
      { kind: 'no-close' },
      { kind: 'preamble' },
      { kind: 'long-boundary' },
      { kind: 'quoted-boundary' },
      { kind: 'empty' },
    ),
  },
)

function partsOf(fields: Array<[string, string]>, file: FilePartSeed | null): Part[] {
  const parts: Part[] = fields.map(([name, value]) => ({ name, content: Buffer.from(value) }))
  if (file)
    parts.push({ name: file.name, filename: file.filename, contentType: file.contentType, content: file.content })
  return parts
}

function mutateForm(parts: Part[], m: FormMutation): string {
  const pick = (at: number): Part | undefined => parts[at % Math.max(1, parts.length)]
  const target = 'at' in m ? pick(m.at) : undefined
  switch (m.kind) {
    case 'drop':
      if (target) parts.splice(parts.indexOf(target), 1)
      return `drop ${target?.name}`
    case 'value':
      if (target) target.content = Buffer.from(m.value)
      return `${target?.name}=${JSON.stringify(m.value).slice(0, 40)}`
    case 'huge':
      if (target) target.content = Buffer.alloc(m.length, 'y')
      return `huge ${target?.name} (${m.length} bytes)`
    case 'repeat':
      if (target) parts.push({ ...target })
      return `repeat ${target?.name}`
    case 'deep-json':
      if (target) target.content = Buffer.from(DEEP_FIELD)
      return `${target?.name}=JSON 25000 deep`
    case 'extra':
      parts.push({
        name: m.name,
        content: Buffer.from(m.value),
        ...(m.file ? { filename: 'x.bin', contentType: 'application/octet-stream' } : {}),
      })
      return `extra ${m.file ? 'file' : 'field'} ${JSON.stringify(m.name)}`
    case 'rename':
      if (target) target.name = m.name
      return `rename ${target?.name} to ${JSON.stringify(m.name)}`
    case 'file-bytes': {
      const file = parts.find((p) => p.filename !== undefined)
      if (file) file.content = Buffer.from(m.bytes)
      return `file bytes (${m.bytes.length} random)`
    }
    case 'as-field':
      if (target) delete target.filename
      return `${target?.name} as a field`
    case 'as-file':
      if (target) target.filename = m.filename
      return `${target?.name} as a file`
    case 'file-meta': {
      const file = parts.find((p) => p.filename !== undefined)
      if (file) Object.assign(file, { filename: m.filename, contentType: m.contentType })
      return `file name ${JSON.stringify(m.filename).slice(0, 30)}, type ${JSON.stringify(m.contentType)}`
    }
  }
}

/** The form on the wire (RFC 7578), names and filenames written as they are, quotes and line breaks included. */
function encodeForm(parts: readonly Part[], boundary: string, eol: string): Buffer {
  const chunks: Buffer[] = []
  for (const part of parts) {
    const disposition = `Content-Disposition: form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`
    const type =
      part.filename === undefined || part.contentType === undefined ? '' : `${eol}Content-Type: ${part.contentType}`
    chunks.push(Buffer.from(`--${boundary}${eol}${disposition}${type}${eol}${eol}`), part.content, Buffer.from(eol))
  }
  chunks.push(Buffer.from(`--${boundary}--${eol}`))
  return Buffer.concat(chunks)
}

function damageForm(parts: readonly Part[], damage: FormDamage): { contentType: string; payload: Buffer } {
  const boundary = 'fuzz-7c1d0e9a'
  const type = `multipart/form-data; boundary=${boundary}`
  const body = encodeForm(parts, boundary, '\r\n')
  switch (damage.kind) {
    case 'none':
      return { contentType: type, payload: body }
    case 'truncate':
      return { contentType: type, payload: body.subarray(0, Math.floor(body.length * damage.cut)) }
    case 'boundary-mismatch':
      return { contentType: 'multipart/form-data; boundary=another-boundary', payload: body }
    case 'no-boundary':
      return { contentType: 'multipart/form-data', payload: body }
    case 'bare-lf':
      return { contentType: type, payload: encodeForm(parts, boundary, '\n') }
    case 'no-close':
      return { contentType: type, payload: body.subarray(0, body.length - `--${boundary}--\r\n`.length) }
    case 'bad-header': {
      const text = body.toString('latin1')
      const headers = [...text.matchAll(/Content-Disposition: [^\r]*/g)]
      const hit = headers[damage.at % Math.max(1, headers.length)]
      if (!hit || hit.index === undefined) return { contentType: type, payload: body }
      return {
        contentType: type,
        payload: Buffer.concat([
          body.subarray(0, hit.index),
          Buffer.from('Content-Disposition form-data name=='),
          body.subarray(hit.index + hit[0].length),
        ]),
      }
    }
    case 'preamble':
      return {
        contentType: type,
        payload: Buffer.concat([Buffer.from('preamble text\r\n'), body, Buffer.from('epilogue')]),
      }
    case 'long-boundary': {
      const long = 'b'.repeat(200)
      return { contentType: `multipart/form-data; boundary=${long}`, payload: encodeForm(parts, long, '\r\n') }
    }
    case 'quoted-boundary':
      return { contentType: `multipart/form-data; boundary="${boundary}"`, payload: body }
    case 'empty':
      return { contentType: type, payload: Buffer.alloc(0) }
  }
}

/** Multipart cases of one seed: the form's parts mutated, and sometimes the form itself damaged. */
function formCases(
  fields: Array<[string, string]>,
  file: FilePartSeed | null,
): fc.Arbitrary<{ contentType: string; payload: Buffer; note: string }> {
  return fc
    .record({ mutations: fc.array(formMutation, { minLength: 0, maxLength: 3 }), damage: formDamage })
    .map(({ mutations, damage }) => {
      const parts = partsOf(fields, file)
      const notes = mutations.map((m) => mutateForm(parts, m))
      if (damage.kind !== 'none') notes.push(`form ${damage.kind}`)
      return { ...damageForm(parts, damage), note: notes.join('; ') || 'the seed form' }
    })
}

/** A valid seed as it goes on the wire. */
export function encodeSeed(seed: Seed): { contentType: string; payload: Buffer } {
  if (seed.kind === 'json') return { contentType: 'application/json', payload: Buffer.from(JSON.stringify(seed.body)) }
  return damageForm(partsOf(seed.fields, seed.file), { kind: 'none' })
}

/**
 * Every case of a route: mostly its own kind of body, sometimes the other kind (a form where JSON is expected,
 * JSON where a form is), at one of its URLs. `[fc.toStringMethod]` keeps fast-check's report to the note, not a
 * megabyte of body.
 */
export function fuzzCases(urls: readonly string[], seeds: readonly Seed[]): fc.Arbitrary<FuzzCase> {
  const bodies = seeds.map((seed) => {
    const own =
      seed.kind === 'json'
        ? jsonCases(seed.body).map(({ text, note }) => ({
            contentType: 'application/json',
            payload: Buffer.from(text),
            note,
          }))
        : formCases(seed.fields, seed.file)
    const other =
      seed.kind === 'json'
        ? formCases(
            Object.entries(seed.body ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
            null,
          ).map((c) => ({ ...c, note: `as a form: ${c.note}` }))
        : jsonCases(Object.fromEntries(seed.fields)).map(({ text, note }) => ({
            contentType: 'application/json',
            payload: Buffer.from(text),
            note: `as JSON: ${note}`,
          }))
    return fc.oneof({ weight: 9, arbitrary: own }, { weight: 1, arbitrary: other })
  })
  return fc.record({ url: fc.constantFrom(...urls), body: fc.oneof(...bodies) }).map(({ url, body }) => {
    const fuzzCase: FuzzCase = { url, contentType: body.contentType, payload: body.payload, note: body.note }
    Object.defineProperty(fuzzCase, fc.toStringMethod, {
      value: () => `POST ${url} [${body.contentType}] ${body.note} (${body.payload.length} bytes)`,
    })
    return fuzzCase
  })
}
