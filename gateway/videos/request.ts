/**
 * The create body of POST /v1/videos (Part 2 sections 4.1, 7, 8): JSON, or multipart/form-data when
 * input_reference is sent. Both forms are read into one shape and checked by the same rules; every
 * refusal is a 400 naming the parameter.
 *
 * Where the reference is silent, this gateway's choices (gateway/README.md repeats them):
 * - seconds of models other than vidA: "4" or "8" (section 4.1: durations are generally multiples of 4);
 * - sizes of the models whose sizes are not shown: the four sizes of the vidB preview models;
 * - input_reference: at most 20 MB, and it must really be a JPEG, PNG or WebP: its first bytes decide,
 *   not the declared content type; in a JSON body it is refused, since a file needs multipart;
 * - seconds must be a JSON string ("sent as a string"): a number is refused rather than coerced.
 */
import type { MultipartFile } from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import { invalidParameter } from '../errors.ts'
import { formError, PARSER_OPTIONS } from '../multipart-forms.ts'
import limits from '../../schemas/limits/video-limits.json' with { type: 'json' }
import { MODEL_RULES, type ModelRule, type ReferenceType, STATED, type VideoRules } from './rules.ts'

export const VIDEO_MODELS: readonly string[] = Object.keys(MODEL_RULES)

/** This gateway's seconds for models whose values the reference does not list (section 4.1: multiples of 4). */
const OTHER_SECONDS = ['4', '8'] as const
/** This gateway's sizes for models whose sizes are not shown: the vidB preview list. */
const OTHER_SIZES = limits.models['vidB-3.1-generate-preview'].sizes
/** How large an input_reference image may be: the reference gives no limit; 20 MB is generous for one frame. */
export const MAX_REFERENCE_BYTES = 20_000_000

export interface ReferenceImage {
  readonly type: ReferenceType
  readonly bytes: number
}

export interface VideoSpec {
  readonly model: string
  readonly prompt: string
  readonly seconds: string
  readonly size: string
  readonly width: number
  readonly height: number
  readonly safetyIdentifier: string | null
  readonly reference: ReferenceImage | null
}

/** The body as fields, plus the input_reference file when the form carried one. */
interface RawCreate {
  fields: Record<string, unknown>
  reference: { bytes: Buffer; filename: string } | null
}

export async function readCreateBody(request: FastifyRequest): Promise<RawCreate> {
  try {
    return await readBody(request)
  } catch (error) {
    throw formError(error)
  }
}

async function readBody(request: FastifyRequest): Promise<RawCreate> {
  if (!request.isMultipart()) {
    // A JSON object by the request schema, judged before the route runs.
    const fields = request.body as Record<string, unknown>
    if (fields.input_reference !== undefined)
      throw invalidParameter('input_reference', 'input_reference is a file: send the request as multipart/form-data.')
    return { fields, reference: null }
  }
  const fields: Record<string, unknown> = {}
  let reference: RawCreate['reference'] = null
  for await (const part of request.parts({
    ...PARSER_OPTIONS,
    limits: { fileSize: MAX_REFERENCE_BYTES + 1, files: 1, fields: 20, fieldSize: 64 * 1024 },
  })) {
    if (part.type === 'field') {
      if (fields[part.fieldname] !== undefined)
        throw invalidParameter(part.fieldname, `${part.fieldname} is given more than once.`)
      fields[part.fieldname] = part.value
      continue
    }
    if (part.fieldname !== 'input_reference')
      throw invalidParameter(
        part.fieldname,
        `Unexpected file field '${part.fieldname}'; the image goes in input_reference.`,
      )
    reference = { bytes: await readFile(part), filename: part.filename }
  }
  return { fields, reference }
}

/**
 * The image, refused at the first byte past the limit. Not part.toBuffer(): past the limit it waits for busboy to
 * skip the rest of the part, so a huge upload would be read to its end before the 400; thrown here, the route
 * stops reading and closes the connection.
 */
async function readFile(part: MultipartFile): Promise<Buffer> {
  const chunks: Buffer[] = []
  let bytes = 0
  for await (const chunk of part.file as AsyncIterable<Buffer>) {
    bytes += chunk.length
    if (bytes > MAX_REFERENCE_BYTES)
      throw invalidParameter('input_reference', `input_reference is larger than ${MAX_REFERENCE_BYTES} bytes.`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, bytes)
}

/** JPEG, PNG or WebP by their signatures (JFIF/Exif SOI marker, the PNG signature, RIFF....WEBP). */
export function imageType(bytes: Buffer): ReferenceImage['type'] | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg'
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png'
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP')
    return 'image/webp'
  return null
}

function stringField(fields: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const value = fields[name]
  if (value === undefined || value === null) {
    if (required) throw invalidParameter(name, `${name} is required.`)
    return undefined
  }
  if (typeof value !== 'string') throw invalidParameter(name, `${name} must be a string.`)
  return value
}

export function checkCreate(raw: RawCreate, rules: VideoRules): VideoSpec {
  const { fields } = raw
  const model = stringField(fields, 'model', true) as string
  const rule = rules.models[model] ?? rules.unknownModelServedAs
  if (rule === undefined)
    throw invalidParameter('model', `model must be one of ${VIDEO_MODELS.join(', ')}; got '${model}'.`)

  const prompt = stringField(fields, 'prompt', rules.requirePrompt) ?? ''
  // Characters as people count them (code points), not UTF-16 units.
  if ([...prompt].length > rules.promptMaxChars)
    throw invalidParameter(
      'prompt',
      `prompt is at most ${STATED.promptMaxChars} characters; got ${[...prompt].length}.`,
    )
  if (prompt.trim() === '' && rules.requirePrompt) throw invalidParameter('prompt', 'prompt must not be empty.')

  const seconds = checkSeconds(fields.seconds, rule, rules)
  const size = checkSize(stringField(fields, 'size', false) ?? rules.defaultSize, rule, rules)
  const [width, height] = size.split('x').map(Number) as [number, number]

  const safetyIdentifier = stringField(fields, 'safety_identifier', false) ?? null
  if (safetyIdentifier !== null && [...safetyIdentifier].length > rules.safetyIdentifierMaxChars) {
    throw invalidParameter(
      'safety_identifier',
      `safety_identifier is at most ${STATED.safetyIdentifierMaxChars} characters; got ${[...safetyIdentifier].length}.`,
    )
  }
  return {
    model,
    prompt,
    seconds,
    size,
    width,
    height,
    safetyIdentifier,
    reference: checkReference(raw.reference, rules),
  }
}

function checkSeconds(value: unknown, rule: ModelRule, rules: VideoRules): string {
  if (value === undefined || value === null) return rules.defaultSeconds
  let text: string
  if (typeof value === 'string') text = value
  else if (typeof value === 'number' && !rules.secondsAsString) text = String(value)
  else throw invalidParameter('seconds', 'seconds must be sent as a string, e.g. "4".')
  const allowed = rule.seconds ?? OTHER_SECONDS
  const anyMultiple =
    !rules.listedSecondsOnly && rule.family === 'vidA' && /^[1-9]\d*$/.test(text) && Number(text) % 4 === 0
  if (!allowed.includes(text) && !anyMultiple)
    throw invalidParameter(
      'seconds',
      `seconds must be one of ${allowed.map((s) => `"${s}"`).join(', ')} for this model; got ${JSON.stringify(text)}.`,
    )
  return text
}

function checkSize(size: string, rule: ModelRule, rules: VideoRules): string {
  const shape = /^([1-9]\d{1,4})x([1-9]\d{1,4})$/.exec(size)
  if (shape === null)
    throw invalidParameter('size', `size must be WIDTHxHEIGHT, e.g. ${limits.defaultSize}; got '${size}'.`)
  if (!rules.checkSize) return size
  const allowed = rule.sizes ?? OTHER_SIZES
  if (!allowed.includes(size))
    throw invalidParameter('size', `size must be one of ${allowed.join(', ')} for this model; got '${size}'.`)
  return size
}

const TYPE_NAMES: Readonly<Record<ReferenceType, string>> = {
  'image/jpeg': 'JPEG',
  'image/png': 'PNG',
  'image/webp': 'WebP',
}

function checkReference(file: RawCreate['reference'], rules: VideoRules): ReferenceImage | null {
  if (file === null) return null
  if (file.bytes.length > MAX_REFERENCE_BYTES)
    throw invalidParameter('input_reference', `input_reference is larger than ${MAX_REFERENCE_BYTES} bytes.`)
  const type = imageType(file.bytes)
  if (type === null && !rules.checkReferenceType) return { type: 'image/png', bytes: file.bytes.length }
  if (type === null || !rules.referenceTypes.includes(type)) {
    const names = rules.referenceTypes.map((accepted) => TYPE_NAMES[accepted])
    const listed = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`
    throw invalidParameter('input_reference', `input_reference must be a ${listed} image.`)
  }
  return { type, bytes: file.bytes.length }
}
