/**
 * What the transcription and translation suites upload (Part 2 §4.3, §4.4): WAV tones of known length, made
 * once per worker, and the answers' text read whichever way the target gives it.
 */
import type { FilePart } from '../../harness/multipart.ts'
import type { Exchange } from '../../harness/http-client.ts'
import { isObject } from '../../common/json.ts'
import { dataUrl, wavTone } from './fixtures.ts'

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

export const TEXT_FILE: FilePart = {
  filename: 'notes.txt',
  contentType: 'text/plain',
  content: 'These are notes, not audio.\n',
}

/** The text of a json answer ({text}) or of a text/plain body; undefined when neither. */
export function answerText(ex: Exchange): string | undefined {
  const body = ex.json
  if (isObject(body)) return typeof body.text === 'string' ? body.text : undefined
  return /^text\/plain\b/i.test(ex.header('content-type') ?? '') ? ex.text : undefined
}
