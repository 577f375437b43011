/**
 * Real audio for the audio suites, made here rather than stored: WAV files of a known length (a tone, or
 * silence for the 25 MB uploads), and the checks that tell one container from another by its bytes (Part 2
 * §4.2: mp3, opus, aac, flac, wav, pcm). The suite never imports the gateway, so this is its own small writer
 * and reader of RIFF/WAVE.
 */

interface WavSpec {
  seconds: number
  sampleRate?: number
  channels?: number
  bitsPerSample?: 8 | 16
  /** Hz of the tone; 0 writes silence. */
  frequency?: number
}

const DEFAULT_WAV = { sampleRate: 8_000, channels: 1, bitsPerSample: 16 as const, frequency: 440 }

/** A canonical PCM WAV header for `dataBytes` bytes of samples. */
export function wavHeader(sampleRate: number, channels: number, bitsPerSample: number, dataBytes: number): Buffer {
  const blockAlign = channels * (bitsPerSample / 8)
  const h = Buffer.alloc(44)
  h.write('RIFF', 0, 'ascii')
  h.writeUInt32LE(36 + dataBytes, 4)
  h.write('WAVEfmt ', 8, 'ascii')
  h.writeUInt32LE(16, 16)
  h.writeUInt16LE(1, 20)
  h.writeUInt16LE(channels, 22)
  h.writeUInt32LE(sampleRate, 24)
  h.writeUInt32LE(sampleRate * blockAlign, 28)
  h.writeUInt16LE(blockAlign, 32)
  h.writeUInt16LE(bitsPerSample, 34)
  h.write('data', 36, 'ascii')
  h.writeUInt32LE(dataBytes, 40)
  return h
}

/** A WAV of exactly `seconds` of a tone (whole sample frames). */
export function wavTone(spec: WavSpec): Buffer {
  const { sampleRate, channels, bitsPerSample, frequency } = { ...DEFAULT_WAV, ...spec }
  const frames = Math.round(spec.seconds * sampleRate)
  const bytesPerSample = bitsPerSample / 8
  const data = Buffer.alloc(frames * channels * bytesPerSample, bitsPerSample === 8 ? 128 : 0)
  if (frequency > 0) {
    for (let i = 0; i < frames; i += 1) {
      const value = Math.sin((2 * Math.PI * frequency * i) / sampleRate) * 0.3
      for (let c = 0; c < channels; c += 1) {
        const at = (i * channels + c) * bytesPerSample
        if (bitsPerSample === 16) data.writeInt16LE(Math.round(value * 32_767), at)
        else data[at] = Math.round(128 + value * 127)
      }
    }
  }
  return Buffer.concat([wavHeader(sampleRate, channels, bitsPerSample, data.length), data])
}

/**
 * A WAV of exactly `totalBytes` bytes of silence (for the 25 MB edges): 48 kHz stereo 16-bit when the data fills
 * whole 4-byte frames, else 48 kHz mono 8-bit, so that the file is a valid WAV whatever its size.
 */
export function wavOfSize(totalBytes: number): { bytes: Buffer; seconds: number } {
  const data = totalBytes - 44
  const [channels, bits] = data % 4 === 0 ? [2, 16] : [1, 8]
  const bytes = Buffer.alloc(totalBytes, bits === 8 ? 128 : 0)
  wavHeader(48_000, channels, bits, data).copy(bytes)
  return { bytes, seconds: data / (48_000 * channels * (bits / 8)) }
}

export function dataUrl(bytes: Buffer, type = 'audio/wav'): string {
  return `data:${type};base64,${bytes.toString('base64')}`
}

// --- telling formats apart -------------------------------------------------------------------------------

const ascii = (b: Buffer, from: number, to: number): string => b.toString('latin1', from, to)

/** An ID3v2 tag, or an MPEG audio frame sync (11 bits) with a layer other than the reserved 00. */
export function isMp3(b: Buffer): boolean {
  if (ascii(b, 0, 3) === 'ID3') return true
  return (
    b.length >= 4 &&
    b[0] === 0xff &&
    ((b[1] as number) & 0xe0) === 0xe0 &&
    ((b[1] as number) & 0x06) !== 0 &&
    ((b[1] as number) & 0x18) !== 0x08
  )
}

/** An Ogg page whose first packet is an OpusHead. */
export function isOggOpus(b: Buffer): boolean {
  if (ascii(b, 0, 4) !== 'OggS' || b.length < 28) return false
  const head = 27 + (b[26] as number)
  return ascii(b, head, head + 8) === 'OpusHead'
}

/** An ADTS frame header: 12-bit sync, layer 00. */
function isAdts(b: Buffer): boolean {
  return b.length >= 7 && b[0] === 0xff && ((b[1] as number) & 0xf6) === 0xf0
}

function isFlac(b: Buffer): boolean {
  return ascii(b, 0, 4) === 'fLaC'
}

export function isWav(b: Buffer): boolean {
  return ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WAVE'
}

/** Raw 16-bit PCM: no container signature at all, and a whole number of samples. */
function isRawPcm(b: Buffer): boolean {
  return (
    b.length > 0 &&
    b.length % 2 === 0 &&
    !isMp3(b) &&
    !isOggOpus(b) &&
    ascii(b, 0, 4) !== 'OggS' &&
    !isAdts(b) &&
    !isFlac(b) &&
    ascii(b, 0, 4) !== 'RIFF' &&
    ascii(b, 0, 3) !== 'ID3'
  )
}

export interface FormatCheck {
  check: (b: Buffer) => boolean
  what: string
  /**
   * The format has one container, which §4.2's name fixes (mp3, flac, wav); the others come in several (opus in
   * Ogg or WebM, aac in ADTS or MP4, pcm undefined), so their usual container is a SHOULD.
   */
  fixed: boolean
}

export const FORMAT_CHECKS: Readonly<Record<string, FormatCheck>> = {
  mp3: { check: isMp3, what: 'an ID3 tag or an MPEG audio frame sync (FF Ex/Fx)', fixed: true },
  opus: { check: isOggOpus, what: 'an Ogg page (OggS) whose first packet is OpusHead', fixed: false },
  aac: { check: isAdts, what: 'an ADTS frame (sync FFF, layer 00)', fixed: false },
  flac: { check: isFlac, what: 'fLaC', fixed: true },
  wav: { check: isWav, what: 'RIFF....WAVE', fixed: true },
  pcm: { check: isRawPcm, what: 'raw 16-bit samples: no container signature, an even length', fixed: false },
}

export function firstBytes(b: Buffer, n = 16): string {
  return `${b.length} bytes, first ${b.subarray(0, n).toString('hex')}`
}

/** The size a streaming encoder writes where it does not know the length yet (RIFF and data chunk). */
export const UNKNOWN_SIZE = 0xffffffff

export interface WavReading {
  sampleRate: number
  channels: number
  bitsPerSample: number
  dataBytes: number
  seconds: number
  /** What is inconsistent, empty when nothing is. */
  problems: string[]
}

/**
 * Reads a WAV's chunks and says what, if anything, disagrees with the file. A RIFF or data size of 0xFFFFFFFF is
 * the unknown size a streaming encoder writes: the data then runs to the end of the file, as decoders read it.
 */
export function readWav(b: Buffer): WavReading {
  const problems: string[] = []
  const reading: WavReading = { sampleRate: 0, channels: 0, bitsPerSample: 0, dataBytes: 0, seconds: 0, problems }
  if (!isWav(b)) {
    problems.push(`not RIFF....WAVE (${firstBytes(b)})`)
    return reading
  }
  const riffSize = b.readUInt32LE(4)
  if (riffSize !== b.length - 8 && riffSize !== UNKNOWN_SIZE)
    problems.push(`RIFF size ${riffSize}, but the file is ${b.length} bytes (expected ${b.length - 8})`)
  let at = 12
  let byteRate = 0
  let blockAlign = 0
  let sawData = false
  while (at + 8 <= b.length) {
    const id = ascii(b, at, at + 4)
    const declared = b.readUInt32LE(at + 4)
    const size = id === 'data' && declared === UNKNOWN_SIZE ? b.length - (at + 8) : declared
    if (at + 8 + size > b.length)
      problems.push(`chunk ${id} at ${at} declares ${size} bytes, past the end of the file (${b.length} bytes)`)
    if (id === 'fmt ') {
      const format = b.readUInt16LE(at + 8)
      reading.channels = b.readUInt16LE(at + 10)
      reading.sampleRate = b.readUInt32LE(at + 12)
      byteRate = b.readUInt32LE(at + 16)
      blockAlign = b.readUInt16LE(at + 20)
      reading.bitsPerSample = b.readUInt16LE(at + 22)
      if (format !== 1 && format !== 0xfffe) problems.push(`fmt audio format ${format}, not PCM (1)`)
      if (blockAlign !== reading.channels * (reading.bitsPerSample / 8))
        problems.push(
          `block align ${blockAlign}, expected channels x bits / 8 = ${reading.channels * (reading.bitsPerSample / 8)}`,
        )
      if (byteRate !== reading.sampleRate * blockAlign)
        problems.push(`byte rate ${byteRate}, expected sample rate x block align = ${reading.sampleRate * blockAlign}`)
    }
    if (id === 'data') {
      sawData = true
      reading.dataBytes = size
      if (blockAlign > 0 && size % blockAlign !== 0)
        problems.push(`data chunk of ${size} bytes is not a whole number of ${blockAlign}-byte frames`)
      if (byteRate > 0) reading.seconds = size / byteRate
      if (byteRate === 0) problems.push('data chunk before any fmt chunk')
    }
    at += 8 + size + (size % 2)
  }
  if (!sawData) problems.push('no data chunk')
  else if (at !== b.length && at - (reading.dataBytes % 2) !== b.length)
    problems.push(`the chunks end at byte ${at}, the file at ${b.length}`)
  return reading
}
