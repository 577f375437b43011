/**
 * Reading audio bytes well enough to say whether they are what a label claims (Part 2 §2.6, §4.8, §4.9): the
 * RIFF/WAVE structure and its lengths, the MPEG frame sync or ID3 tag of MP3, the Ogg capture pattern with an
 * OpusHead packet. Not a decoder: the signatures and lengths a real decoder checks first.
 */

export interface WavInfo {
  format: number
  channels: number
  sampleRate: number
  bitsPerSample: number
  dataBytes: number
}

export type WavReading = { ok: true; info: WavInfo; lengths: string | undefined } | { ok: false; problem: string }

/** The size a streaming encoder writes where it does not know the length yet (RIFF and data chunk). */
export const UNKNOWN_SIZE = 0xffffffff

export function isRiff(bytes: Buffer): boolean {
  return bytes.length >= 12 && bytes.toString('ascii', 0, 4) === 'RIFF' && bytes.toString('ascii', 8, 12) === 'WAVE'
}

/**
 * Walks the chunks of a RIFF/WAVE file to its fmt and data chunks. `lengths` says where the declared sizes
 * disagree with the file (undefined when they agree): a RIFF or data size of 0xFFFFFFFF is the unknown size a
 * streaming encoder writes, and the data then runs to the end of the file, which decoders accept.
 */
export function readWav(bytes: Buffer): WavReading {
  if (!isRiff(bytes))
    return { ok: false, problem: `no RIFF....WAVE header (first bytes ${bytes.subarray(0, 12).toString('hex')})` }
  const riffSize = bytes.readUInt32LE(4)
  let lengths: string | undefined =
    riffSize === UNKNOWN_SIZE || riffSize === bytes.length - 8
      ? undefined
      : `RIFF size ${riffSize} but the file has ${bytes.length} bytes (expected ${bytes.length - 8})`
  let fmt: Omit<WavInfo, 'dataBytes'> | undefined
  for (let offset = 12; offset + 8 <= bytes.length; ) {
    const id = bytes.toString('ascii', offset, offset + 4)
    const declared = bytes.readUInt32LE(offset + 4)
    const body = offset + 8
    const unknown = id === 'data' && declared === UNKNOWN_SIZE
    const size = unknown ? bytes.length - body : declared
    if (body + size > bytes.length) {
      if (id !== 'data')
        return {
          ok: false,
          problem: `chunk "${id}" of ${size} bytes at ${offset} runs past the end of the file (${bytes.length} bytes)`,
        }
      lengths ??= `data chunk of ${size} bytes at ${offset} runs past the end of the file (${bytes.length} bytes)`
    }
    if (id === 'fmt ' && size >= 16) {
      fmt = {
        format: bytes.readUInt16LE(body),
        channels: bytes.readUInt16LE(body + 2),
        sampleRate: bytes.readUInt32LE(body + 4),
        bitsPerSample: bytes.readUInt16LE(body + 14),
      }
    }
    if (id === 'data') {
      if (fmt === undefined) return { ok: false, problem: 'a data chunk before any fmt chunk' }
      return { ok: true, info: { ...fmt, dataBytes: Math.min(size, bytes.length - body) }, lengths }
    }
    offset = body + size + (size % 2)
  }
  return { ok: false, problem: fmt === undefined ? 'no fmt chunk' : 'no data chunk' }
}

export function isMp3(bytes: Buffer): boolean {
  if (bytes.length >= 3 && bytes.toString('ascii', 0, 3) === 'ID3') return true
  // Frame sync: eleven set bits, and a layer field that is not the reserved 00.
  return (
    bytes.length >= 4 &&
    bytes[0] === 0xff &&
    ((bytes[1] as number) & 0xe0) === 0xe0 &&
    ((bytes[1] as number) & 0x06) !== 0
  )
}

export function isOggOpus(bytes: Buffer): boolean {
  return (
    bytes.length >= 36 &&
    bytes.toString('ascii', 0, 4) === 'OggS' &&
    bytes.subarray(0, 200).includes(Buffer.from('OpusHead', 'ascii'))
  )
}

/** Strict Base64 (the standard alphabet with padding), decoded; undefined when the text is not Base64. */
export function decodeBase64(text: string): Buffer | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined
  return Buffer.from(text, 'base64')
}

/** Parameters of a mime type, lower-cased names: "audio/L16;codec=pcm;rate=24000" -> { codec: pcm, rate: 24000 }. */
export function mimeParameters(mime: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const piece of mime.split(';').slice(1)) {
    const [name, value] = piece.split('=')
    if (name !== undefined && value !== undefined) out[name.trim().toLowerCase()] = value.trim()
  }
  return out
}

export function describe(bytes: Buffer): string {
  return `${bytes.length} bytes starting ${bytes.subarray(0, 16).toString('hex')}`
}
