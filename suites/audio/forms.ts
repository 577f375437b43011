/**
 * What the transcription and translation suites upload (Part 2 §4.3, §4.4): WAV tones of known length, made
 * once per worker, and the answers' text read whichever way the target gives it.
 */
import type { FilePart } from '../../harness/worker/multipart.ts'
import type { Exchange } from '../../harness/worker/http-client.ts'
import { isObject } from '../../common/json.ts'
import { dataUrl, wavHeader, wavTone } from './fixtures.ts'

const cache = new Map<number, Buffer>()

/** A WAV tone of exactly `seconds` (8 kHz mono 16-bit), kept for the worker's other tests. */
export function tone(seconds: number): Buffer {
  let wav = cache.get(seconds)
  if (wav === undefined) {
    wav = wavTone({ seconds })
    cache.set(seconds, wav)
  }
  return wav
}

export function wavPart(seconds: number): FilePart {
  return { filename: `tone-${seconds}s.wav`, contentType: 'audio/wav', content: tone(seconds) }
}

/** A reference clip for known_speaker_references[] (§4.3: 2 to 10 seconds, as a data URL). */
export function clip(seconds: number): string {
  return dataUrl(tone(seconds))
}

/**
 * A WAV of exactly `seconds`, cut from (or looped over) the samples of another PCM WAV, header rewritten: the
 * target's own speech as a known-speaker clip of a chosen length.
 */
export function wavOfLength(source: Buffer, seconds: number): Buffer {
  let at = 12
  let format: { rate: number; channels: number; bits: number } | undefined
  let data: Buffer | undefined
  while (at + 8 <= source.length) {
    const id = source.toString('latin1', at, at + 4)
    const declared = source.readUInt32LE(at + 4)
    const size = Math.min(declared, source.length - (at + 8))
    if (id === 'fmt ')
      format = {
        channels: source.readUInt16LE(at + 10),
        rate: source.readUInt32LE(at + 12),
        bits: source.readUInt16LE(at + 22),
      }
    if (id === 'data') data = source.subarray(at + 8, at + 8 + size)
    at += 8 + size + (size % 2)
  }
  if (format === undefined || data === undefined || data.length === 0) return tone(seconds)
  const frame = format.channels * (format.bits / 8)
  const bytes = Math.round(seconds * format.rate) * frame
  const out = Buffer.alloc(bytes)
  for (let i = 0; i < bytes; i += data.length) data.copy(out, i, 0, Math.min(data.length, bytes - i))
  return Buffer.concat([wavHeader(format.rate, format.channels, format.bits, bytes), out])
}

export const TEXT_FILE: FilePart = {
  filename: 'notes.txt',
  contentType: 'text/plain',
  content: 'These are notes, not audio.\n',
}

/** A translation's answer as §4.4 allows it, "English text" in no stated shape: a JSON object, or a text body. */
export function isTextAnswer(ex: Exchange): boolean {
  if (isObject(ex.json)) return true
  return ex.jsonError !== undefined && /^text\//i.test(ex.header('content-type') ?? '') && ex.text.trim() !== ''
}

/** The text of a json answer ({text}) or of a text/plain body; undefined when neither. */
export function answerText(ex: Exchange): string | undefined {
  const body = ex.json
  if (isObject(body)) return typeof body.text === 'string' ? body.text : undefined
  return /^text\/plain\b/i.test(ex.header('content-type') ?? '') ? ex.text : undefined
}
