/**
 * Receiving the multipart form of POST /v1/audio/transcriptions and /v1/audio/translations (Part 2 §4.3, §4.4,
 * §8): the file part is read while its bytes are counted, and refused at the first byte past 25 MB without
 * reading the rest (the caller closes the connection, as the files upload does). A file within the limit is
 * kept in memory (at most 25 MB), since its duration may need its last bytes (an Ogg granule, MPEG frames).
 *
 * Repeated fields (`timestamp_granularities[]`, `include[]`, `known_speaker_names[]`,
 * `known_speaker_references[]`) are collected in order; any other field given twice is a 400.
 */
import type { FastifyRequest } from 'fastify'
import { GatewayError, invalidParameter } from '../errors.ts'
import { formError, PARSER_OPTIONS } from '../multipart-forms.ts'
import { exceeds, type Limit } from './limits.ts'

/** §4.3, §4.4, §8: 25 MB, decimal like the 128 MB of Part 1 §8.4. */
export const AUDIO_UPLOAD_MAX_BYTES = 25_000_000
/** Variation audio-upload-mib: the limit read as binary megabytes, which "25 MB" allows too. */
export const AUDIO_UPLOAD_MAX_MIB = 25 * 1024 * 1024
/** Fault *-size-unchecked: a limit of twice 25 MiB, past every reading of 25 MB. */
export const AUDIO_UPLOAD_UNCHECKED = 2 * AUDIO_UPLOAD_MAX_MIB

/** Room for four reference clips of up to 10 s as data URLs, besides the small fields. */
const FORM_LIMITS = { fields: 64, fieldSize: 4 * 1024 * 1024, parts: 80, files: 1, headerPairs: 100 } as const

export interface AudioForm {
  fields: Map<string, string>
  lists: Map<string, string[]>
  file: { filename: string; contentType: string; bytes: Buffer } | undefined
}

export async function receiveAudioForm(request: FastifyRequest, limit: Limit): Promise<AudioForm> {
  try {
    return await readAudioForm(request, limit)
  } catch (error) {
    throw formError(error)
  }
}

async function readAudioForm(request: FastifyRequest, limit: Limit): Promise<AudioForm> {
  if (!request.isMultipart())
    throw invalidParameter('file', 'This endpoint takes multipart/form-data with the fields file and model.')
  const { max } = limit
  const form: AudioForm = { fields: new Map(), lists: new Map(), file: undefined }
  for await (const part of request.parts({ ...PARSER_OPTIONS, limits: { ...FORM_LIMITS, fileSize: max + 1 } })) {
    if (part.type === 'field') {
      const value = String(part.value)
      if (part.fieldname.endsWith('[]')) {
        const list = form.lists.get(part.fieldname) ?? []
        list.push(value)
        form.lists.set(part.fieldname, list)
      } else {
        if (form.fields.has(part.fieldname))
          throw invalidParameter(part.fieldname, `${part.fieldname} is given more than once.`)
        form.fields.set(part.fieldname, value)
      }
      continue
    }
    if (part.fieldname !== 'file')
      throw invalidParameter(
        part.fieldname,
        `Unexpected file field '${part.fieldname}'; the audio goes in the field file.`,
      )
    if (form.file) throw invalidParameter('file', 'Send one file.')
    const chunks: Buffer[] = []
    let bytes = 0
    for await (const chunk of part.file as AsyncIterable<Buffer>) {
      bytes += chunk.length
      if (exceeds(bytes, limit)) throw fileTooLarge(max)
      chunks.push(chunk)
    }
    form.file = {
      filename: part.filename,
      contentType: part.mimetype || 'application/octet-stream',
      bytes: Buffer.concat(chunks, bytes),
    }
  }
  return form
}

/** Section 7 of Part 1 lists 400 for an invalid request and no 413, so an oversized file is a 400, as on files. */
function fileTooLarge(max: number): GatewayError {
  return new GatewayError(400, `The file is larger than the audio upload limit of ${max} bytes (25 MB).`, {
    param: 'file',
    code: 'file_too_large',
  })
}
